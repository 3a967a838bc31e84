/** Worker for the `llm` task queue only (see workers/main.ts for flags). */
import { workerFailed, workerMain } from './main.ts';

workerMain(process.argv.slice(2), ['llm']).catch(workerFailed);
