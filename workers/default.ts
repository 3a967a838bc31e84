/** Worker for the `default` task queue only (see workers/main.ts for flags). */
import { workerMain } from './main.ts';

workerMain(process.argv.slice(2), ['default']).catch((err) => {
  console.error(err);
  process.exit(1);
});
