import type { EntityManager } from '@mikro-orm/postgresql';
import { chunkPages, closesParagraphs } from './chunker';
import { IndexAnalysis, stageChunks } from './index-writer';
import type { ParsedPage } from './types';

/** Decides how the document is analysed, from the text of its first pages (language detection). */
export type AnalysisResolver = (sample: string) => Promise<IndexAnalysis>;

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
  /** Decided once, from the first batch of pages (see AnalysisResolver). */
  private analysis: Promise<IndexAnalysis> | null = null;
  /** The heading in force at the end of the pages chunked so far (it carries into the next batch). */
  private section: string | undefined;

  constructor(
    private readonly em: EntityManager,
    private readonly resolveAnalysis: AnalysisResolver,
    private readonly batchPages = 16,
  ) {}

  /** How the document was analysed (after finish()); null when it had no text. */
  async result(): Promise<IndexAnalysis | null> {
    return this.analysis;
  }

  push(page: ParsedPage): void {
    this.pending.push(page);
    if (this.pending.length >= this.batchPages && closesParagraphs(page)) this.flush();
  }

  private flush(): void {
    if (!this.pending.length) return;
    const pages = this.pending;
    // the previous batch's last heading still governs the top of this one
    if (this.section && !pages[0].sections?.some((s) => s.offset === 0))
      pages[0] = { ...pages[0], sections: [{ offset: 0, title: this.section }, ...(pages[0].sections ?? [])] };
    for (const p of pages) {
      const last = [...(p.sections ?? [])].sort((a, b) => a.offset - b.offset).pop();
      if (last) this.section = last.title;
    }
    const chunks = chunkPages(pages, {}, this.nextOrdinal);
    this.pending = [];
    this.nextOrdinal += chunks.length;
    this.chunkCount += chunks.length;
    if (!chunks.length) return;
    const sample = chunks
      .map((c) => c.text)
      .join('\n\n')
      .slice(0, 8000);
    // resolved on the chain: the resolver may query on the same connection
    if (!this.analysis) {
      this.analysis = this.chain.then(() => this.resolveAnalysis(sample));
      this.analysis.catch(() => undefined); // surfaces through the chain below
    }
    const analysis = this.analysis;
    this.chain = this.chain.then(async () => stageChunks(this.em, await analysis, chunks));
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
