import { performance } from 'node:perf_hooks';
import { LimitError } from '../limits';
import { threadCpuMs } from './thread-clock';

/**
 * A parse that waits without working (its thread starved, or blocked) is stopped after this many
 * times the processor-time limit in wall-clock time.
 */
export const WALL_FACTOR = 10;
/** The granularity of /proc's processor times. */
const CLOCK_TICK_MS = 10;

/** A thread working for the document: its processor time from `cpu0`, up to `end` once it has left. */
interface ThreadSpan {
  tid: number | null;
  cpu0: number | null;
  end: number | null;
  done: boolean;
}

/**
 * The processor-time budget of one document's parse (see pool.ts): PARSER_TIMEOUT_SECONDS, and
 * OCR_PAGE_TIMEOUT_SECONDS more for each page recognised, which may itself use no more than that.
 * The document's own thread counts from its start; a thread of the pool that recognises one of its
 * pages counts while it does (its processor time is the document's too). Where a thread's time cannot
 * be read, wall-clock time less the time spent writing rows stands in, and a parse that waits
 * WALL_FACTOR times its budget is stopped either way.
 */
export class ParseClock {
  /** When the document's thread took the task (time waiting in the queue does not count). */
  private started = 0;
  private writing = 0;
  private budget: number;
  private readonly spans = new Map<string, ThreadSpan>();
  /** The page each thread is recognising now (by thread id), since when. */
  private readonly pages = new Map<number, { n: number; cpu0: number | null; started: number }>();
  /** Pages whose recognition has added to the budget (a page rendered here and recognised elsewhere counts once). */
  private readonly counted = new Set<number>();
  /** The thread that last worked on each recognised page. */
  readonly recognisedBy = new Map<number, number | null>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    budgetMs: number,
    private readonly pageLimitMs: number,
    private readonly over: (e: LimitError) => void,
  ) {
    this.budget = budgetMs;
  }

  /** A thread starts working for the document (`key` names the task: the document's, or a page's). */
  threadStart(key: string, tid: number | null): void {
    if (this.spans.size === 0) this.started = performance.now();
    this.spans.set(key, { tid, cpu0: tid === null ? null : threadCpuMs(tid), end: null, done: false });
    this.check();
  }

  /** The task `key` has ended: its thread's time stops counting (the thread goes on to other work). */
  threadEnd(key: string): void {
    const span = this.spans.get(key);
    if (!span || span.done) return;
    span.end = span.tid === null ? null : threadCpuMs(span.tid);
    span.done = true;
    if (span.tid !== null) this.pages.delete(span.tid);
  }

  /** Thread `tid` starts recognising page `n`, or (null) has stopped. */
  recognising(tid: number | null, n: number | null): void {
    if (tid === null) return;
    if (n === null) {
      this.pages.delete(tid);
      return;
    }
    if (!this.counted.has(n)) {
      this.counted.add(n);
      this.budget += this.pageLimitMs;
    }
    this.recognisedBy.set(n, tid);
    this.pages.set(tid, { n, cpu0: threadCpuMs(tid), started: performance.now() });
    this.check();
  }

  /** Time spent writing rows, which is not the file's doing. */
  wrote(ms: number): void {
    this.writing += ms;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Processor time of the threads so far, or null when one cannot be read. */
  private used(): number | null {
    let used = 0;
    for (const s of this.spans.values()) {
      const now = s.done ? s.end : s.tid === null ? null : threadCpuMs(s.tid);
      if (now === null || s.cpu0 === null) return null;
      used += now - s.cpu0;
    }
    return used;
  }

  private check(): void {
    clearTimeout(this.timer);
    if (this.stopped || this.spans.size === 0) return;
    const used = this.used();
    const factor = used === null ? 1 : WALL_FACTOR;
    const waited = performance.now() - this.started - this.writing;
    const budgetS = Math.round(this.budget / 100) / 10;
    if ((used ?? 0) >= this.budget) return this.fail(`parsing used more than ${budgetS} s of processor time`);
    if (waited >= factor * this.budget) return this.fail(`parsing took longer than ${Math.round(budgetS * factor)} s`);
    let wait = Math.min(this.budget - (used ?? 0), factor * this.budget - waited);
    const pageS = Math.round(this.pageLimitMs / 100) / 10;
    for (const [tid, page] of this.pages) {
      const now = threadCpuMs(tid);
      const pageUsed = now === null || page.cpu0 === null ? 0 : now - page.cpu0;
      const pageWaited = performance.now() - page.started;
      if (pageUsed >= this.pageLimitMs)
        return this.fail(`recognising page ${page.n} used more than ${pageS} s of processor time (OCR_PAGE_TIMEOUT_SECONDS)`);
      if (pageWaited >= factor * this.pageLimitMs)
        return this.fail(`recognising page ${page.n} took longer than ${Math.round(pageS * factor)} s (OCR_PAGE_TIMEOUT_SECONDS)`);
      wait = Math.min(wait, this.pageLimitMs - pageUsed, factor * this.pageLimitMs - pageWaited);
    }
    this.timer = setTimeout(() => this.check(), Math.max(0, wait) + CLOCK_TICK_MS);
  }

  private fail(message: string): void {
    this.stop();
    this.over(new LimitError(message));
  }
}
