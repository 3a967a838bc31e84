import { RequestError } from './requests.ts';

/**
 * Runs jobs one after another (a model's engine already uses every core for one batch), skipping any whose
 * client has gone away by its turn. Without the skip, a client that times out and retries leaves its abandoned
 * request in the queue: under load every retry waits behind abandoned work, times out in turn, and the queue
 * never drains (seen on MBPP's longest snippets through e5: 32-text batches past the client's 120 s).
 */
export function oneAtATime() {
  let chain: Promise<unknown> = Promise.resolve();
  return <T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
    const next = chain.then(() => {
      if (signal?.aborted) throw new RequestError(499, 'the client closed the connection before its turn; not embedded', null, 'client_closed');
      return job();
    });
    chain = next.catch(() => {});
    return next;
  };
}
