/** All-in-one worker for local runs: every task queue in one process (see workers/main.ts for flags). */
import { workerMain } from './main.ts';

workerMain(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exit(1);
});
