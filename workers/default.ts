/** Worker for the `default` task queue only (see workers/main.ts for flags). */
import { workerFailed, workerMain } from './main.ts';

workerMain(process.argv.slice(2), ['default']).catch(workerFailed);
