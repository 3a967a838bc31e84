// A forked process starts without the parent's TypeScript loader, and `--import tsx` would resolve tsx from the
// user's working directory; this plain module registers the project's own tsx, then imports the worker proper.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./onnxWorker.ts', import.meta.url).href);
