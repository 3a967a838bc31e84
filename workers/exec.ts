/** Worker for the `exec` task queue only (see workers/main.ts for flags). */
import { workerMain } from './main.ts';

workerMain(process.argv.slice(2), ['exec']).catch((err) => {
  console.error(err);
  process.exit(1);
});
