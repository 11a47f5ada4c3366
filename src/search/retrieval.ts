import { performance } from 'node:perf_hooks';
import { IsolationLevel, type EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../errors';
import { analyseText, cjkVectorLiteral, languageConfigTable, projectLanguages } from './analysis';
import { query } from '../db/sql';
import { CANDIDATES, QueryTerm, rankBm25 } from './bm25';
import { DEFAULT_FUSION, FusionParams, fuseRankings } from './fusion';
import { nothingRelevant, questionRelevance, type SearchTrace } from './relevance';
import { SearchStages, stopwatch } from './stages';
import { SearchContext, SearchPart } from './context';
import type { EmbeddingsService } from './embeddings';
import { RERANK_CANDIDATES, RERANK_SETTING_SQL, type RerankService, type RerankSetting } from './rerank';

/** One retrieved chunk, best first. */
export interface RetrievalHit {
  chunkId: string;
  documentId: string;
  documentName: string;
  pageNumber: number;
  text: string;
  context: string;
  score: number;
}

/** How a search may be tuned or observed (evaluation, benchmarks); chat passes `timings`. */
export interface SearchOptions {
  topK?: number;
  timings?: { embeddingMs?: number; rerankMs?: number };
  /** Fusion weights for this call (evaluation and tuning; default DEFAULT_FUSION). */
  fusion?: FusionParams;
  /** Receives the rankings before fusion and the question's relevance (evaluation and tuning). */
  trace?: SearchTrace;
  /** The relevance floor for this call (evaluation; default RELEVANCE_FLOOR; 0: the content-word rule alone). */
  relevanceFloor?: number;
  /** Receives the time spent in each stage (benchmarks). */
  stages?: SearchStages;
  /** The postings BM25 scores exactly (EXACT_POSTINGS; evaluation: a small corpus ranked as a large one is). */
  exactPostings?: number;
}

/** Chunks returned when neither the caller nor the project's `settings.topK` says otherwise. */
export const DEFAULT_TOP_K = 6;
const MAX_TOP_K = 50;
/** Where a question's CJK bigram positions start (after its other words; positions only feed the phrase bonus). */
const CJK_POSITION_OFFSET = 4096;
/** BM25 leaders taken into fusion with the vector neighbours (the proximity-reranked pool). */
const FUSION_DEPTH = 50;
/** Longest question considered (characters) and most distinct terms used. */
const MAX_QUERY_CHARS = 2000;
const MAX_TERMS = 32;

/**
 * Retrieval over a project's chunks: PostgreSQL full-text search (GIN on `chunks.tsv`) fetches
 * candidates with OR semantics over the question's terms, then BM25 with the project's own term
 * statistics ranks them, and a phrase/proximity bonus reorders the leaders. Chat calls search().
 */
export class RetrievalService extends SearchPart {
  constructor(
    ctx: SearchContext,
    private readonly embeddings: EmbeddingsService,
    private readonly reranker: RerankService,
  ) {
    super(ctx);
  }

  /**
   * The `topK` best chunks for `question` in the project (default: the project's `settings.topK`,
   * else 6). Access is the wing's to check (SearchWing.search), once per question.
   */
  async search(projectId: string, question: string, opts: SearchOptions = {}): Promise<RetrievalHit[]> {
    const lap = stopwatch(opts.stages);
    const t0 = performance.now();
    // the semantic side (embed the question, vector neighbours) runs beside the lexical one; it
    // resolves null when there is no embedding source or the embedder fails, and never throws
    const semantic = this.embeddings.neighbours(projectId, question.slice(0, MAX_QUERY_CHARS), opts.stages);
    // a short read-only transaction of its own, so the planner setting below stays inside it; one
    // snapshot for all its statements, so a document re-indexed meanwhile (new chunk ids) cannot
    // make the chunks ranked by one statement vanish from the next
    let t = performance.now();
    const hits = await this.freshEm().transactional(
      async (em) => {
        t = lap('begin', t);
        const { terms, absentWords, topK, projectChunks, tableChunks, rerank } = await this.analyze(
          em,
          projectId,
          question.slice(0, MAX_QUERY_CHARS),
          opts.topK,
        );
        t = lap('analyze', t);
        // the project's reranker, resolved beside the lexical statement (null: none configured,
        // known from the analysis without a statement of its own; never throws)
        const resolving = t;
        const reranking = this.reranker.source(projectId, rerank).finally(() => lap('rerankSource', resolving));
        const lexical = terms.length
          ? await rankBm25(
              em,
              projectId,
              terms,
              Math.max(topK, FUSION_DEPTH),
              { projectChunks, ginOnly: projectChunks * projectChunks > CANDIDATES * tableChunks },
              opts.exactPostings,
            )
          : [];
        t = lap('lexical', t);
        // nothing relevant (search/relevance.ts): no passage shares a content word with the
        // question, or the best is below the floor: no passage at all, whatever the vectors say
        const relevance = questionRelevance(lexical[0]?.score, terms, absentWords, projectChunks);
        if (opts.trace) Object.assign(opts.trace, { relevance, terms, absentWords, projectChunks });
        if (nothingRelevant(relevance, opts.relevanceFloor)) {
          if (opts.trace) opts.trace.lexical = lexical;
          return [];
        }
        // the fusion point: BM25 ranking and vector neighbours by reciprocal rank fusion (lexical alone without vectors)
        const vectors = await semantic;
        t = lap('vectorWait', t);
        if (opts.timings && vectors) opts.timings.embeddingMs = Math.round(vectors.embeddingMs);
        if (opts.trace) {
          opts.trace.lexical = lexical;
          opts.trace.vector = vectors?.neighbours ?? [];
        }
        // with a reranker, fusion keeps RERANK_CANDIDATES for it to re-score and its best topK stand
        // (on any failure of the reranker, the fused order's topK)
        const reranker = await reranking;
        t = lap('vectorWait', t);
        const depth = reranker ? Math.max(topK, RERANK_CANDIDATES) : topK;
        const fused = vectors?.neighbours.length
          ? fuseRankings(lexical, vectors.neighbours, depth, opts.fusion ?? DEFAULT_FUSION)
          : lexical.slice(0, depth);
        const ranked = reranker
          ? await this.reranker.rerank(em, reranker, question.slice(0, MAX_QUERY_CHARS), fused, topK, opts.timings)
          : fused;
        t = lap('fusion', t);
        if (!ranked.length) return [];
        // a chunk that crosses page breaks is cited on the page holding the text that matches the
        // question best: its page parts (page_starts) are scored by the idf of the question terms
        // each contains (analysed with the document's configuration); a tie goes to the longer part
        const rows = await query<{ id: string; document_id: string; name: string; page_number: number; text: string; context: string }>(
          em,
          `with terms as (select * from jsonb_to_recordset(?::jsonb) as t(term text, idf float8))
           select c.id, c.document_id, d.name, c.text, c.context,
                  case when c.page_starts is null then c.page_number else (
                    select c.page_number + part.i - 1
                      from generate_series(1, cardinality(c.page_starts) + 1) part(i)
                     cross join lateral (select substr(c.text, coalesce(c.page_starts[part.i - 1], 0) + 1,
                                                       coalesce(c.page_starts[part.i], length(c.text)) - coalesce(c.page_starts[part.i - 1], 0)) as text) seg
                     cross join lateral (select tsvector_to_array(to_tsvector(coalesce(
                                           (select oid::regconfig from pg_ts_config where cfgname::text = coalesce(?::jsonb ->> d.language, case when d.language is null then ? else 'simple' end)),
                                           'simple'::regconfig), docqa_unaccent(seg.text))) as lexemes) v
                     order by (select coalesce(sum(t.idf), 0) from terms t where t.term = any(v.lexemes)) desc, length(seg.text) desc, part.i
                     limit 1) end as page_number
             from chunks c join documents d on d.id = c.document_id
            where c.id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`,
          [
            JSON.stringify(terms.map((t) => ({ term: t.term, idf: t.idf }))),
            JSON.stringify(languageConfigTable(this.config.searchLanguage)),
            this.config.searchLanguage,
            JSON.stringify(ranked.map((r) => r.id)),
          ],
        );
        t = lap('hydrate', t);
        const byId = new Map(rows.map((r) => [r.id, r]));
        if (vectors && rows.length < ranked.length)
          this.embeddings.forget(
            projectId,
            vectors.model,
            ranked.filter((r) => !byId.has(r.id)).map((r) => r.id),
          );
        return ranked.flatMap((r) => {
          const row = byId.get(r.id);
          return row
            ? [
                {
                  chunkId: r.id,
                  documentId: row.document_id,
                  documentName: row.name,
                  pageNumber: row.page_number,
                  text: row.text,
                  context: row.context,
                  score: Math.round(r.score * 1e4) / 1e4,
                },
              ]
            : [];
        });
      },
      { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
    );
    lap('commit', t);
    lap('total', t0);
    return hits;
  }

  /**
   * The question's index terms with their document frequency and BM25 idf in this project, and
   * the number of chunks to return. The question is analysed as documents are (analysis.ts): its
   * CJK runs as bigrams, the rest with the text-search configuration of every language present
   * in the project (one vector per configuration, lexemes merged). Statistics are per lexeme, so a
   * stem produced by two configurations is one term with one document frequency. A word that any
   * of those languages treats as a stop word is left out in all of them: otherwise "the", kept by
   * the French configuration, would match only the English passages of French documents and, rare
   * there, outweigh the question's real words (measured: English recall@5 fell from 0.54 to 0.38
   * on the evaluation corpus before this rule).
   */
  private async analyze(
    em: EntityManager,
    projectId: string,
    question: string,
    topK?: number,
  ): Promise<{
    terms: QueryTerm[];
    /** The question's content words no chunk of the project holds. */
    absentWords: number;
    topK: number;
    projectChunks: number;
    tableChunks: number;
    rerank: RerankSetting;
  }> {
    const { plain, bigrams } = analyseText(question);
    const langs = projectLanguages(projectId);
    const rows = await query<{
      lexeme: string | null;
      positions: number[] | null;
      df: number | null;
      chunk_count: number | null;
      top_k: string | null;
      table_chunks: number;
      m: string | null;
      def: boolean;
    }>(
      em,
      `with recursive ${langs.sql},
            cfgs as (select distinct coalesce(pc.cfgname::text, 'simple') as cfg
                       from langs l
                       left join jsonb_each_text(?::jsonb) m on m.key = l.language
                       left join pg_ts_config pc on pc.cfgname = case when l.language is null then ? else coalesce(m.value, 'simple') end),
            v as (select cfgs.cfg, u.lexeme, u.positions from cfgs cross join lateral unnest(to_tsvector(cfgs.cfg::regconfig, docqa_unaccent(?))) u),
            -- the question's language: the configuration that drops the most of its words as stop
            -- words (fewest positions indexed), when exactly one does
            counts as (select c.cfg, (select count(distinct p) from v cross join lateral unnest(v.positions) p where v.cfg = c.cfg) as n from cfgs c),
            lead as (select cfg from counts where n = (select min(n) from counts)
                      and (select count(*) from counts where n = (select min(n) from counts)) = 1),
            -- word positions kept: those the question's language indexes (its stop words are
            -- dropped in every configuration, another language's are not); when the language
            -- cannot be told, those every configuration indexes
            kept as (select p from v cross join lateral unnest(v.positions) p where v.cfg = (select cfg from lead)
                     union
                     select p from v cross join lateral unnest(v.positions) p where not exists (select 1 from lead)
                      group by p having count(distinct v.cfg) = (select count(*) from cfgs)),
            q as ((select distinct on (v.lexeme) v.lexeme, k.positions
                     from v cross join lateral (select array_agg(p order by p) as positions from unnest(v.positions) p where p in (select p from kept)) k
                    where k.positions is not null
                    order by v.lexeme, v.cfg)
                  union all
                  -- CJK bigrams, placed after any Latin words (only distances among them matter)
                  select u.lexeme, array(select p + ${CJK_POSITION_OFFSET} from unnest(u.positions) p) from unnest(coalesce(?::tsvector, ''::tsvector)) u)
       select q.lexeme, q.positions, ts.df, s.chunk_count, p.settings->>'topK' as top_k,
              (select reltuples from pg_class where oid = 'chunks'::regclass) as table_chunks,
              ${RERANK_SETTING_SQL},
              -- for the rest of the transaction (no statement of its own): testing tsv @@ query
              -- row by row detoasts every vector, which the planner does not price; for a common
              -- term under LIMIT it would rather scan the table (hundreds of milliseconds at 100k
              -- chunks) than read the GIN index's matches (see rankBm25 for the index path it gets)
              set_config('enable_seqscan', 'off', true) as seqscan
         from projects p
         left join project_index_stats s on s.project_id = p.id
         left join q on true
         left join term_stats ts on ts.project_id = p.id and ts.term = q.lexeme
        where p.id = ?`,
      [
        ...langs.params,
        JSON.stringify(languageConfigTable(this.config.searchLanguage)),
        this.config.searchLanguage,
        plain,
        cjkVectorLiteral(bigrams),
        projectId,
      ],
    );
    if (!rows.length) throw new NotFoundError('not_found', 'Project not found');
    const settingTopK = Number(rows[0].top_k);
    const k = topK ?? (Number.isInteger(settingTopK) && settingTopK > 0 ? settingTopK : DEFAULT_TOP_K);
    const n = Number(rows[0].chunk_count ?? 0);
    const terms = rows
      .filter((r) => r.lexeme && r.df && r.df > 0)
      .map((r) => ({ term: r.lexeme!, positions: r.positions ?? [], df: r.df!, idf: Math.log(1 + (n - r.df! + 0.5) / (r.df! + 0.5)) }))
      .sort((a, b) => a.df - b.df)
      .slice(0, MAX_TERMS);
    return {
      terms,
      absentWords: rows.filter((r) => r.lexeme && !(r.df && r.df > 0)).length,
      topK: Math.min(MAX_TOP_K, Math.max(1, Math.floor(k))),
      projectChunks: n,
      tableChunks: Math.max(n, Number(rows[0].table_chunks) || 0),
      rerank: { model: rows[0].m, defaultProvider: !!rows[0].def },
    };
  }
}
