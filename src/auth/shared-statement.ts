import DataLoader from 'dataloader';

/** Statements in flight at once; requests arriving meanwhile wait and go together in the next one. */
const MAX_IN_FLIGHT = 2;

/**
 * The authenticated hot path's way to reach PostgreSQL (issue 38): every request still runs its own
 * statement after it arrived — nothing is cached, so what was committed before a request is seen by
 * it, on every node — but the requests that arrive together, or while the previous statements are on
 * the wire, share one statement: one round trip and one execution for many, instead of one each.
 * Alone, a request's statement starts at the end of its event-loop turn.
 *
 * `run` gets the batch's inputs in arrival order (duplicates included: each is one request) and
 * answers one result per input, in the same order.
 */
export function sharedStatement<K, V>(run: (inputs: readonly K[]) => Promise<V[]>): (input: K) => Promise<V> {
  let slots = 0;
  const waiting: Array<() => void> = [];
  const loader = new DataLoader<K, V>(
    async (inputs) => {
      try {
        return await run(inputs);
      } finally {
        // the slot passes to the batch that waited longest, if any
        const next = waiting.shift();
        if (next) setImmediate(next);
        else slots--;
      }
    },
    {
      // never a cache: each load is a request of its own, batched only with those at the same time
      cache: false,
      maxBatchSize: 200,
      batchScheduleFn: (dispatch) => {
        if (slots < MAX_IN_FLIGHT) {
          slots++;
          setImmediate(dispatch);
        } else waiting.push(dispatch);
      },
    },
  );
  return (input) => loader.load(input);
}
