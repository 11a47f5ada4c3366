import type { EntityManager } from '@mikro-orm/postgresql';
import { chunkPages, closesParagraphs } from './chunker';
import { stageChunks } from './index-writer';
import type { ParsedPage } from './types';

/**
 * Chunks and stages pages while the rest of the document is still being read: pages are taken
 * in runs of at least `batchPages` that end on a page closing its paragraphs (see
 * closesParagraphs), which chunk exactly as the whole document would. Staging statements run one
 * after another on the transaction's connection.
 */
export class PageStager {
  private pending: ParsedPage[] = [];
  private nextOrdinal = 0;
  private chain: Promise<void> = Promise.resolve();
  /** Chunks produced so far. */
  chunkCount = 0;

  constructor(
    private readonly em: EntityManager,
    private readonly language: string,
    private readonly batchPages = 16,
  ) {}

  push(page: ParsedPage): void {
    this.pending.push(page);
    if (this.pending.length >= this.batchPages && closesParagraphs(page)) this.flush();
  }

  private flush(): void {
    if (!this.pending.length) return;
    const chunks = chunkPages(this.pending, {}, this.nextOrdinal);
    this.pending = [];
    this.nextOrdinal += chunks.length;
    this.chunkCount += chunks.length;
    if (!chunks.length) return;
    this.chain = this.chain.then(() => stageChunks(this.em, this.language, chunks));
    // the chain is awaited by finish()/settle(); this only keeps an early failure from being "unhandled"
    this.chain.catch(() => undefined);
  }

  /** Stages what is left and waits for all staging; rethrows a staging failure. */
  async finish(): Promise<void> {
    this.flush();
    await this.chain;
  }

  /** Waits until no staging statement is running (used before a failed transaction ends). */
  async settle(): Promise<void> {
    await this.chain.catch(() => undefined);
  }
}
