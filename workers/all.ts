/** All-in-one worker for local runs: every task queue in one process (see workers/main.ts for flags). */
import { workerFailed, workerMain } from './main.ts';

workerMain(process.argv.slice(2)).catch(workerFailed);
