import { Worker } from 'node:worker_threads';
import { loadConfig } from '../../../src/config';
import { LimitError } from '../../../src/ingest/limits';
import { ParserPool, WALL_FACTOR } from '../../../src/ingest/parsers/pool';
import { ownThreadId, threadCpuMs } from '../../../src/ingest/parsers/thread-clock';
import { makePdf } from '../../support/pdf';

/**
 * A parse is limited by the processor time its thread uses, not by the time it waits: a parser
 * thread runs at nice 10, so on a busy machine it may wait for the cores far longer than it works,
 * and a legitimate file must not fail for that. A thread that waits without working is still
 * stopped, after WALL_FACTOR times the limit.
 */
const config = loadConfig({ JWT_SECRET: 'unit-secret-unit-secret', NODE_ENV: 'test' });
const linux = process.platform === 'linux';
// nice 0: on a busy test machine a niced thread could wait past the wall-clock limit before it
// has used the processor time the first test needs
const poolWith = (timeoutMs: number) => new ParserPool(config.parseLimits, { ...config.parserPool, timeoutMs, nice: 0 });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A 200-page PDF: pdf.js needs well over a second of processor time for it. */
const longPdf = makePdf(
  Array.from({ length: 200 }, (_, i) => ({
    paragraphs: Array.from({ length: 12 }, (__, j) => `Page ${i + 1} paragraph ${j + 1}: the pump's valve is checked weekly and logged.`),
  })),
);

describe('thread clock', () => {
  (linux ? it : it.skip)("reads this thread's processor time, which grows with its work", () => {
    const tid = ownThreadId()!;
    expect(tid).toBeGreaterThan(0);
    // the process's processor time is the reference: this thread's share of it, while busy, is most
    // of it (however long the thread waits for a core on a loaded machine)
    const p0 = process.cpuUsage();
    const t0 = threadCpuMs(tid)!;
    const processMs = () => {
      const d = process.cpuUsage(p0);
      return (d.user + d.system) / 1000;
    };
    while (processMs() < 500); // busy
    const busy = threadCpuMs(tid)! - t0;
    const all = processMs();
    // the other threads (the garbage collector's, the compiler's) take a share, never most of it
    expect({ busy: busy >= all / 3, atMostAll: busy <= all + 20, all }).toEqual({ busy: true, atMostAll: true, all });
  });

  (linux ? it : it.skip)('reads another thread’s processor time, which does not grow while that thread waits', async () => {
    // a thread that only waits (this one runs jest's own work between awaits)
    const idle = new Worker(
      "const { parentPort } = require('node:worker_threads'); const fs = require('node:fs'); parentPort.postMessage(Number(fs.readlinkSync('/proc/thread-self').split('/').pop())); parentPort.once('message', () => process.exit(0));",
      { eval: true },
    );
    try {
      const tid = await new Promise<number>((resolve) => idle.once('message', resolve));
      const t0 = threadCpuMs(tid)!;
      expect(t0).toEqual(expect.any(Number));
      await sleep(300);
      expect(threadCpuMs(tid)! - t0).toBeLessThan(50);
    } finally {
      idle.postMessage('end');
      await new Promise((r) => idle.once('exit', r));
    }
  });

  it('answers null for a thread that does not exist', () => {
    expect(threadCpuMs(2 ** 31 - 1)).toBeNull();
  });
});

describe('the parse time limit', () => {
  const pools: ParserPool[] = [];
  afterAll(() => Promise.all(pools.map((p) => p.destroy())));
  const pool = (timeoutMs: number) => {
    const p = poolWith(timeoutMs);
    pools.push(p);
    return p;
  };

  (linux ? it : it.skip)('fails a parse that uses more processor time than the limit, naming it', async () => {
    const err = await pool(200)
      .parse('pdf', longPdf)
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(LimitError);
    expect((err as Error).message).toBe('parsing used more than 0.2 s of processor time');
  });

  (linux ? it : it.skip)('does not count time the parse spends waiting, however long', async () => {
    // the server takes 2.5 s over the analysis; the parser's thread waits meanwhile and works little
    const result = await pool(1_000).parseAndIndex(
      'text',
      Buffer.from('A short note about valves.'),
      { title: 'Note', statedLanguage: null },
      { onAnalysis: () => sleep(2_500), onRows: () => Promise.resolve() },
    );
    expect(result).toEqual({ pages: 1, chunks: 1, runs: [{ from: 1, to: 1, method: 'text', confidence: null }], ocrThreads: 0 });
  });

  (linux ? it : it.skip)(`stops a parse that waits more than ${WALL_FACTOR} times the limit`, async () => {
    // a fresh thread's first parse works well under 300 ms; it waits 4 s for the analysis
    const err = await pool(300)
      .parseAndIndex(
        'text',
        Buffer.from('A short note about valves.'),
        { title: 'Note', statedLanguage: null },
        { onAnalysis: () => sleep(4_000), onRows: () => Promise.resolve() },
      )
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(LimitError);
    expect((err as Error).message).toBe(`parsing took longer than ${WALL_FACTOR * 0.3} s`);
  });
});
