/**
 * Adapts a service stream for a subscription. graphql-ws calls return() when the client
 * unsubscribes, the socket closes or the server stops; that aborts the `signal` handed to the
 * service at once — an async generator's own return() would first wait for the pending read
 * (e.g. the next upstream token), keeping the upstream call alive.
 */
export async function abortableStream<T>(open: (signal: AbortSignal) => Promise<AsyncIterable<T>>): Promise<AsyncIterableIterator<T>> {
  const controller = new AbortController();
  const source = (await open(controller.signal))[Symbol.asyncIterator]();
  let finished = false;
  // eslint-disable-next-line @typescript-eslint/require-await -- implements the async iterator's return(): async keeps any throw a rejection
  const finish = async (): Promise<IteratorResult<T>> => {
    if (!finished) {
      finished = true;
      controller.abort();
      // not awaited: the source ends once its pending read notices the abort
      void source.return?.()?.catch(() => undefined);
    }
    return { done: true, value: undefined };
  };
  const iterator: AsyncIterableIterator<T> = {
    next: async () => {
      if (finished) return { done: true, value: undefined };
      const r = await source.next();
      if (r.done) finished = true;
      return r;
    },
    return: finish,
    throw: async (e?: unknown) => {
      await finish();
      throw e;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
