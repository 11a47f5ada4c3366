import type { Response } from 'express';

/** One Server-Sent Event: a name and a JSON payload. */
export interface SseEvent {
  event: string;
  data: unknown;
  /** The event's place in its stream; a client sends the last one it saw as `Last-Event-ID` to resume. */
  id?: number | string;
}

/** Comment lines keep idle connections open behind proxies and load balancers. */
export const HEARTBEAT_MS = 15_000;

/**
 * An AbortSignal that fires when the client goes away before the response has finished, so the
 * work feeding the stream (e.g. the upstream model call) can stop. Create it before starting work.
 */
export function abortOnClientClose(res: Response): AbortSignal {
  const ctl = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) ctl.abort(new Error('client disconnected'));
  });
  return ctl.signal;
}

/**
 * Writes an async sequence of events as `text/event-stream` (headers sent at once, no buffering
 * by proxies, `: ping` heartbeats), then ends the response. The sequence is read to its end even
 * when the client has gone, so its producer can finish its own bookkeeping.
 */
export async function writeSse(
  res: Response,
  events: AsyncIterable<SseEvent>,
  opts: { heartbeatMs?: number; onEvent?: (e: SseEvent) => void } = {},
): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  res.socket?.setNoDelay(true);

  const open = () => !res.destroyed && !res.writableEnded;
  const write = async (chunk: string): Promise<void> => {
    if (!open()) return;
    if (!res.write(chunk)) {
      // respect backpressure, but never wait on a client that has gone
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  };
  const heartbeat = setInterval(() => {
    if (open()) res.write(': ping\n\n');
  }, opts.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();
  try {
    for await (const e of events) {
      opts.onEvent?.(e);
      await write(`${e.id === undefined ? '' : `id: ${e.id}\n`}event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
    }
  } finally {
    clearInterval(heartbeat);
    if (open()) res.end();
  }
}
