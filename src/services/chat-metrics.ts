import { performance } from 'node:perf_hooks';
import type { ChatEvent } from '../presenters/chat-event.presenter';
import type { Metrics } from '../observability/metrics';

/**
 * Observes a chat stream as its consumer (SSE or the GraphQL subscription) reads it: time to
 * `sources`, time to the first `text`, tokens, and the outcome with the whole duration — `done`,
 * `error` (by its message, a fixed set) or `aborted` when the consumer left before either. The
 * iterator is passed through untouched otherwise, so ending it early still aborts the upstream.
 */
export function observeChat(metrics: Metrics, mode: string, started: number, events: AsyncIterable<ChatEvent>): AsyncIterable<ChatEvent> {
  return {
    [Symbol.asyncIterator]: () => {
      const inner = events[Symbol.asyncIterator]();
      const seconds = () => (performance.now() - started) / 1000;
      let firstText = true;
      let ended = false;
      const end = (outcome: 'done' | 'error' | 'aborted', error = '') => {
        if (ended) return;
        ended = true;
        metrics.chatOutcomes.inc({ outcome, error });
        metrics.chatDuration.observe({ mode, outcome }, seconds());
      };
      const see = (e: ChatEvent) => {
        if (e.event === 'sources') metrics.chatSources.observe({ mode }, seconds());
        else if (e.event === 'text' && firstText) {
          firstText = false;
          metrics.chatFirstText.observe({ mode }, seconds());
        } else if (e.event === 'done') {
          metrics.chatTokens.inc({ mode }, e.data.totalTokens);
          end('done');
        } else if (e.event === 'error') end('error', e.data.message);
      };
      return {
        next: async () => {
          const r = await inner.next();
          if (r.done) end('aborted');
          else see(r.value);
          return r;
        },
        return: async (value?: unknown) => {
          end('aborted');
          return inner.return ? inner.return(value) : { done: true as const, value: undefined };
        },
        throw: async (e?: unknown) => {
          end('aborted');
          if (inner.throw) return inner.throw(e);
          throw e;
        },
      };
    },
  };
}
