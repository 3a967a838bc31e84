/** Worker for the `embed` task queue only (see workers/main.ts for flags). */
import { workerFailed, workerMain } from './main.ts';

workerMain(process.argv.slice(2), ['embed']).catch(workerFailed);
