import type { OcrLimits } from '../limits';
import type { ParsedPage } from '../types';
import type { GrayImage, OcrResult } from './ocr';
import { ocrPage, onPageClock, recognisePage } from './ocr-pages';

/*
 * One document's OCR pages spread over the parser pool's threads. The document's thread reads the
 * file and recognises pages itself; it also draws (or decodes) some of the pages ahead and offers
 * them to the pool (pool.ts runs each as a page task, queued like any task and under the same limits),
 * so that another thread recognises them meanwhile. An offered page is taken by exactly one thread:
 * the pool thread that starts it, or the document's thread, which takes back a page no thread has
 * started once it has nothing else to do (a claim word both sides swap atomically). So a document
 * never waits for a thread that is busy with other documents, and pages still come out in order.
 */

/** An offered page's claim word: offered, taken by a pool thread, or taken back by the document's thread. */
const OFFERED = 0;
const TAKEN = 1;
const TAKEN_BACK = 2;

/** How a document's thread reaches the pool's other threads (set by the parser worker for its task). */
export interface OcrHelpers {
  /** Threads besides this one: each may hold two offered pages (one recognised, one waiting). */
  threads: number;
  /** Offers a drawn page to the pool; resolves with its words, or null when the page was taken back. */
  offer(pageNumber: number, image: GrayImage, claim: Int32Array): Promise<OcrResult | null>;
}

let helpers: OcrHelpers | null = null;

/** Set by the parser worker for the task it runs (null: every page is recognised in this thread). */
export function useOcrHelpers(h: OcrHelpers | null): void {
  helpers = h;
}

/** A pool thread takes an offered page, unless the document's thread has taken it back. */
export const takeOffered = (claim: Int32Array): boolean => Atomics.compareExchange(claim, 0, OFFERED, TAKEN) === OFFERED;
const takeBack = (claim: Int32Array): boolean => Atomics.compareExchange(claim, 0, OFFERED, TAKEN_BACK) === OFFERED;

interface Job {
  n: number;
  prepare: () => Promise<GrayImage | null>;
  state: 'waiting' | 'offered' | 'working' | 'done';
  /** The drawn page while it is offered (kept to be recognised here if taken back). */
  image?: GrayImage;
  claim?: Int32Array;
  /** Settles (never rejects) when the offered page's outcome is in. */
  settled?: Promise<void>;
  page?: ParsedPage;
  error?: Error;
}

const isDone = (job: Job): boolean => job.state === 'done';

/** The pixels in memory that both threads can read (no copy on the way to the pool thread). */
function shared(image: GrayImage): GrayImage {
  const data = new Uint8Array(new SharedArrayBuffer(image.data.length));
  data.set(image.data);
  return { ...image, data };
}

/**
 * A reader's pages in order: text pages as they are, OCR pages recognised here or by the pool's
 * other threads. `page` and `scan` add the next page; pages are handed to `emit` in order, `pace`
 * awaited after each. Without helpers each scanned page is recognised as it comes, as before.
 */
export class OrderedPages {
  private readonly entries: Array<{ page: ParsedPage } | { job: Job }> = [];
  private readonly jobs: Job[] = [];
  private readonly helpers = helpers && helpers.threads > 0 ? helpers : null;
  /** OCR pages held before the first is handed on: enough to keep every helper busy. */
  private readonly window = this.helpers ? 2 + 2 * this.helpers.threads : 1;

  constructor(
    private readonly ocr: OcrLimits | null,
    private readonly emit: (page: ParsedPage) => void,
    private readonly pace: () => Promise<void>,
  ) {}

  /** The next page, read without OCR. */
  async page(page: ParsedPage): Promise<void> {
    this.entries.push({ page });
    await this.flush(false);
  }

  /** The next page, to be recognised from the image `prepare` draws (null: a blank page). */
  async scan(n: number, prepare: () => Promise<GrayImage | null>): Promise<void> {
    const job: Job = { n, prepare, state: 'waiting' };
    this.jobs.push(job);
    this.entries.push({ job });
    await this.flush(false);
  }

  /** Hands on every page left. */
  async finish(): Promise<void> {
    await this.flush(true);
  }

  private async flush(all: boolean): Promise<void> {
    while (this.entries.length) {
      const head = this.entries[0];
      // a scanned page waits while more pages are read (and offered), up to the window
      if ('job' in head && !all && this.jobs.length < this.window && this.entries.length < 2 * this.window) {
        await this.offer();
        return;
      }
      this.entries.shift();
      this.emit('page' in head ? head.page : await this.take(head.job));
      await this.pace();
    }
  }

  /** Works until `job` (the earliest) is recognised: here, by a helper, or taken back from one. */
  private async take(job: Job): Promise<ParsedPage> {
    while (job.state !== 'done') {
      await this.offer();
      if (isDone(job)) break;
      const next = this.jobs.find((j) => j.state === 'waiting') ?? this.jobs.find((j) => j.state === 'offered' && takeBack(j.claim!));
      if (next) await this.recogniseHere(next);
      else await Promise.race(this.jobs.filter((j) => j.state === 'offered').map((j) => j.settled!));
    }
    this.jobs.splice(this.jobs.indexOf(job), 1);
    if (job.error !== undefined) throw job.error;
    return job.page!;
  }

  private async recogniseHere(job: Job): Promise<void> {
    const image = job.image;
    job.state = 'working';
    job.image = undefined;
    job.page = await recognisePage(job.n, () => (image ? Promise.resolve(image) : job.prepare()), this.ocr!);
    job.state = 'done';
  }

  /**
   * Offers the latest waiting pages to the pool while helpers have room, keeping at least one
   * waiting page for this thread (a lone page is recognised here, not handed back and forth).
   */
  private async offer(): Promise<void> {
    const h = this.helpers;
    if (!h) return;
    for (;;) {
      const open = this.jobs.filter((j) => j.state === 'offered').length;
      const waiting = this.jobs.filter((j) => j.state === 'waiting');
      if (open >= 2 * h.threads || waiting.length < 2) return;
      const job = waiting[waiting.length - 1];
      job.state = 'offered';
      // drawn under the page's clock, like a page recognised here
      const drawn = await onPageClock(job.n, job.prepare);
      if (!drawn) {
        job.page = { pageNumber: job.n, text: '' };
        job.state = 'done';
        continue;
      }
      const image = shared(drawn);
      const claim = new Int32Array(new SharedArrayBuffer(4));
      Object.assign(job, { image, claim });
      job.settled = h.offer(job.n, image, claim).then(
        (result) => {
          if (job.state !== 'offered' || !result) return;
          job.page = ocrPage(job.n, result);
          job.state = 'done';
          job.image = undefined;
        },
        (e: Error) => {
          if (job.state !== 'offered') return;
          job.error = e;
          job.state = 'done';
          job.image = undefined;
        },
      );
    }
  }
}
