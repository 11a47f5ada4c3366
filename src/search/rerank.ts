import type { EntityManager } from '@mikro-orm/postgresql';
import { performance } from 'node:perf_hooks';
import { query } from '../db/sql';
import { rerankDocuments } from '../llm/rerank-client';
import { UpstreamAbortedError, UpstreamError } from '../llm/upstream-http';
import type { Ranked } from './fusion';
import { Backoff } from '../util/backoff';
import { ModelSources, SearchContext, SearchPart } from './context';
import type { RerankTarget } from '../llm/provider-targets';

/**
 * Fused candidates a reranker re-scores. A cross-encoder reads every (question, passage) pair, so
 * its cost grows with this; 30 passages of up to ~1,800 characters are one request that hosted and
 * local rerankers answer in well under a second, and reach far enough below the usual topK (6) for
 * a passage fusion placed 7th–30th to be brought up.
 */
export const RERANK_CANDIDATES = 30;
/** After a failed rerank, questions skip the reranker this long (fused order) instead of each waiting for it, as embeddings' QUERY_BACKOFF_MS. */
const RERANK_BACKOFF_MS = 15_000;
/** Characters of a passage sent (chunks are at most ~1,800; this only bounds odd ones). */
const MAX_DOCUMENT_CHARS = 4000;

/**
 * What decides whether a project may have a reranker, as select-list items over `projects p`
 * (retrieval reads them in its analysis statement, so a search without a reranker pays nothing):
 * `m` the project's `settings.rerankModel`, `def` whether an enabled default provider lists one.
 */
export const RERANK_SETTING_SQL = `p.settings->>'rerankModel' as m,
  exists (select 1 from providers where is_enabled and is_default and jsonb_array_length(rerank_models) > 0) as def`;

/** A project's reranker setting as read beside other project data (RERANK_SETTING_SQL). */
export interface RerankSetting {
  model: string | null;
  defaultProvider: boolean;
}

/**
 * The optional reranking stage after fusion (DESIGN §9): the project's reranker (providers.service
 * resolves it and decrypts the key) re-scores the best fused candidates through `POST /rerank`.
 * Any failure or a time-out (RERANK_TIMEOUT_MS) leaves the fused order, never an error; a failing
 * reranker is skipped for a while.
 */
export class RerankService extends SearchPart {
  constructor(
    ctx: SearchContext,
    private readonly providers: ModelSources,
  ) {
    super(ctx);
  }

  private readonly failingUntil = new Backoff(RERANK_BACKOFF_MS);

  /**
   * The project's reranker, or null: none configured (one small statement and nothing else, none
   * when the caller passes the `setting` it read), backing off after a failure, or the provider's
   * key unreadable. Never throws.
   */
  async source(projectId: string, setting?: RerankSetting): Promise<RerankTarget | null> {
    try {
      const [row] = setting
        ? [{ m: setting.model, def: setting.defaultProvider }]
        : await query<{ m: string | null; def: boolean }>(this.freshEm(), `select ${RERANK_SETTING_SQL} from projects p where p.id = ?`, [
            projectId,
          ]);
      if (!row || (!row.m && !row.def && !this.config.rerank)) return null;
      const source = await this.providers.resolveForRerank(row.m);
      if (!source || this.failingUntil.active(source.key)) return null;
      return source;
    } catch (err) {
      this.logger.warn({ err, projectId }, 'resolving the reranker failed; the fused order stands');
      return null;
    }
  }

  /**
   * `candidates` (fused, best first) reordered by the reranker's relevance to `question`, cut to
   * `topK`; the passages' texts are read with `em` (the search's snapshot), in one statement. On
   * any failure, the fused order cut to `topK`. Sets `timings.rerankMs` when the reranker was called.
   * Never throws.
   */
  async rerank(
    em: EntityManager,
    source: RerankTarget,
    question: string,
    candidates: Ranked[],
    topK: number,
    timings?: { rerankMs?: number },
  ): Promise<Ranked[]> {
    const fused = candidates.slice(0, topK);
    if (candidates.length < 2) return fused;
    let started = 0;
    try {
      const rows = await query<{ id: string; text: string }>(
        em,
        `select c.id, c.text from chunks c where c.id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`,
        [JSON.stringify(candidates.map((c) => c.id))],
      );
      const text = new Map(rows.map((r) => [r.id, r.text]));
      const docs = candidates.filter((c) => text.has(c.id));
      if (docs.length < 2) return fused;
      started = performance.now();
      const results = await rerankDocuments(
        source.target,
        question,
        docs.map((d) => text.get(d.id)!.slice(0, MAX_DOCUMENT_CHARS)),
        { timeoutMs: this.config.rerankTimeoutMs, topN: topK, signal: this.ctx.shutdown },
      );
      if (timings) timings.rerankMs = Math.round(performance.now() - started);
      this.failingUntil.succeeded(source.key);
      const out: Ranked[] = results.map((r) => ({ id: docs[r.index].id, score: r.score }));
      // a reranker that answered fewer than topK: the others follow in their fused order
      const chosen = new Set(out.map((r) => r.id));
      for (const c of docs) if (out.length < topK && !chosen.has(c.id)) out.push(c);
      return out;
    } catch (e) {
      if (timings && started) timings.rerankMs = Math.round(performance.now() - started);
      if (e instanceof UpstreamError) this.failingUntil.failed(source.key);
      if (!(e instanceof UpstreamAbortedError)) this.logger.warn({ err: e, model: source.key }, 'reranking failed; the fused order stands');
      return fused;
    }
  }
}
