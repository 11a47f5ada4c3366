import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { BenchEnv } from './lib/env';
import { percentiles, round } from './lib/load';

export interface ResumeBench {
  trials: number;
  /** From sending the resume request to its first event (the first one the client missed), ms. */
  firstMissedMs: { median: number; p95: number; max: number };
  /** Trials whose first resumed event was not the one after Last-Event-ID, or whose text was not whole. */
  wrong: number;
}

/**
 * Reads one SSE response until `until` says stop (then aborts it) or it ends; the events, and when
 * the first arrived (ms after `t0`).
 */
async function readEvents(
  res: Response,
  ctl: AbortController,
  t0: number,
  until: (all: EventSourceMessage[]) => boolean,
): Promise<{ events: EventSourceMessage[]; firstMs: number }> {
  const events: EventSourceMessage[] = [];
  let firstMs = NaN;
  let stop = false;
  const parser = createParser({
    onEvent: (ev) => {
      if (stop) return;
      if (!events.length) firstMs = performance.now() - t0;
      events.push(ev);
      stop = until(events);
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (stop) {
        ctl.abort();
        break;
      }
    }
  } catch (e) {
    if (!stop) throw e;
  }
  return { events, firstMs };
}

const textOf = (events: EventSourceMessage[]) =>
  events
    .filter((e) => e.event === 'text')
    .map((e) => (JSON.parse(e.data) as { delta: string }).delta)
    .join('');

/**
 * Issue 38's target "resuming a stream delivers the first missed event within 50 ms": a chat stream
 * is dropped after three `text` events, the answer goes on being generated while nobody listens
 * (`gapMs`), then `GET /api/chat/messages/:id/stream` with `Last-Event-ID` is timed from the request
 * to its first event. The upstream must stream `expected` slowly enough to still be running.
 */
export async function benchResume(
  env: BenchEnv,
  opts: { token: string; projectId: string; expected: string; trials?: number; gapMs?: number },
): Promise<ResumeBench> {
  const trials = opts.trials ?? 20;
  const auth = { authorization: `Bearer ${opts.token}` };
  const samples: number[] = [];
  let wrong = 0;
  for (let i = 0; i < trials; i++) {
    const ctl = new AbortController();
    const res = await fetch(`${env.baseUrl}/api/chat/projects/${opts.projectId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ message: `Resumed question ${i}` }),
      signal: ctl.signal,
    });
    const first = await readEvents(res, ctl, performance.now(), (all) => all.filter((e) => e.event === 'text').length === 3);
    const meta = JSON.parse(first.events.find((e) => e.event === 'meta')!.data) as { messageId: string };
    const lastId = first.events.at(-1)!.id!;
    await new Promise((r) => setTimeout(r, opts.gapMs ?? 150));
    const ctl2 = new AbortController();
    const t0 = performance.now();
    const again = await fetch(`${env.baseUrl}/api/chat/messages/${meta.messageId}/stream`, {
      headers: { accept: 'text/event-stream', 'last-event-id': lastId, ...auth },
      signal: ctl2.signal,
    });
    const rest = await readEvents(again, ctl2, t0, (all) => all.at(-1)!.event === 'done');
    samples.push(rest.firstMs);
    const whole = textOf(first.events) + textOf(rest.events) === opts.expected;
    if (rest.events[0]?.id !== String(Number(lastId) + 1) || !whole) wrong++;
  }
  const p = percentiles(samples);
  return { trials, firstMissedMs: { median: round(p.median), p95: round(p.p95), max: round(Math.max(...samples)) }, wrong };
}
