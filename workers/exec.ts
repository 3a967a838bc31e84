/** Worker for the `exec` task queue only (see workers/main.ts for flags). */
import { workerFailed, workerMain } from './main.ts';

workerMain(process.argv.slice(2), ['exec']).catch(workerFailed);
