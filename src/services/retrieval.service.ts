import { IsolationLevel, type EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { requireTier } from '../access/resolver';
import { NotFoundError } from '../errors';
import { analyseText, cjkVectorLiteral, languageConfigTable } from '../ingest/analysis';
import { HEADER_POSITION, query } from '../ingest/index-writer';
import { DEFAULT_FUSION, FusionParams, fuseRankings, Ranked } from '../retrieval/fusion';
import { isUuid } from '../validation';
import { BaseService, ServiceContext } from './context';
import type { EmbeddingsService } from './embeddings.service';
import { RERANK_CANDIDATES, type RerankService } from './rerank.service';

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

/** Chunks returned when neither the caller nor the project's `settings.topK` says otherwise. */
export const DEFAULT_TOP_K = 6;
const MAX_TOP_K = 50;
/**
 * BM25 parameters, measured on the development split (lexical, 318 questions): the usual k1 1.2,
 * b 0.75 gave recall@1 0.478, recall@5 0.692; b 0.5 → 0.484, 0.698; b 0.3 → 0.481, 0.701; b 0.9 →
 * 0.469, 0.689; k1 1.6 → 0.475, 0.689; k1 0.9 with b 0.5 → 0.484, 0.711 (chunks are of similar
 * length, so length normalisation matters less; term saturation comes sooner in technical text).
 */
export const K1 = 0.9;
export const B = 0.5;
/**
 * Candidates scored per question. They are taken in tiers from the GIN index, most promising
 * first, until this many are found (see rank()); a question of common words therefore never makes
 * us read every chunk that contains them.
 */
const CANDIDATES = 200;
/**
 * The rarest terms used to form tiers (the rest still count in the score). Four carry nearly all of
 * a question's idf; more only makes PostgreSQL re-read the long posting lists of common words once
 * per tier (measured at 100k chunks: 8 → 4 took chat-like questions from 28 to 17 ms median with
 * the same recall on the labelled set, alone and among 100k distractors).
 */
const TIER_TERMS = 4;
/**
 * Exact BM25 when it is cheap: when the question's terms have at most this many postings in the
 * project (their document frequencies added up), every chunk containing any of them is scored,
 * so the BM25 top-k is exact. Only larger projects with common question words go through the
 * tiers, which bound the work (measured: see README, "Lexical ranking").
 */
const EXACT_POSTINGS = 6000;
/** The "other rare terms" tier takes terms whose document frequencies add up to at most this. */
const RARE_TERMS_BUDGET = 3000;
/**
 * BM25F: an occurrence in the chunk's contextual header (document title, section headings and
 * entry terms; indexed from HEADER_POSITION on) counts this many times an occurrence in the text.
 * Measured on the development split (lexical): weight 1 → recall@1 0.512, recall@5 0.746;
 * 2 → 0.515, 0.754; 3 → 0.512, 0.754.
 */
export const HEADER_WEIGHT = 2;
/** How many BM25 leaders get the phrase/proximity bonus before the final cut. */
const RERANK_POOL = 50;
/** Weight of the proximity bonus relative to a term's idf. */
const PROXIMITY_WEIGHT = 0.6;
/** Where a question's CJK bigram positions start (after its other words; positions only feed the phrase bonus). */
const CJK_POSITION_OFFSET = 4096;
/** BM25 leaders taken into fusion with the vector neighbours (the proximity-reranked pool). */
const FUSION_DEPTH = 50;
/** Longest question considered (characters) and most distinct terms used. */
const MAX_QUERY_CHARS = 2000;
const MAX_TERMS = 32;

export interface QueryTerm {
  term: string;
  /** Positions of the term in the question (word order, for the phrase bonus). */
  positions: number[];
  df: number;
  idf: number;
}

/** Quotes a lexeme for a tsquery literal. */
const lexemeLiteral = (t: string): string => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * Phrase/proximity bonus: for each pair of terms next to each other in the question, a chunk
 * where they appear in the same order at the same distance (a phrase) earns the rarer term's idf;
 * within three words of that, half of it; in reverse order nearby, a quarter.
 */
export function proximityBonus(terms: QueryTerm[], positions: Record<string, number[]>): number {
  const ordered = terms.filter((t) => t.positions.length).sort((a, b) => a.positions[0] - b.positions[0]);
  let bonus = 0;
  for (let i = 0; i + 1 < ordered.length; i++) {
    const a = ordered[i];
    const b = ordered[i + 1];
    const pa = positions[a.term];
    const pb = positions[b.term];
    if (!pa || !pb) continue;
    const gap = Math.max(1, b.positions[0] - a.positions[0]);
    let best = 0;
    for (const x of pa) {
      for (const y of pb) {
        const d = y - x;
        const s = d === gap ? 1 : d > 0 && d <= gap + 3 ? 0.5 : d < 0 && -d <= 3 ? 0.25 : 0;
        if (s > best) best = s;
      }
      if (best === 1) break;
    }
    bonus += best * Math.min(a.idf, b.idf);
  }
  return bonus * PROXIMITY_WEIGHT;
}

/**
 * Retrieval over a project's chunks: PostgreSQL full-text search (GIN on `chunks.tsv`) fetches
 * candidates with OR semantics over the question's terms, then BM25 with the project's own term
 * statistics ranks them, and a phrase/proximity bonus reorders the leaders. Chat calls search().
 */
export class RetrievalService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly embeddings: EmbeddingsService,
    private readonly reranker: RerankService,
  ) {
    super(ctx);
  }

  /**
   * The `topK` best chunks for `question` in the project (default: the project's `settings.topK`,
   * else 6). With an actor, `use` on the project is checked first; chat passes null after it has
   * authorized the caller itself.
   */
  async search(
    actor: Actor | null,
    projectId: string,
    question: string,
    opts: {
      topK?: number;
      timings?: { embeddingMs?: number; rerankMs?: number };
      /** Fusion weights for this call (evaluation and tuning; default DEFAULT_FUSION). */
      fusion?: FusionParams;
      /** Receives the rankings before fusion (evaluation and tuning). */
      trace?: { lexical?: Ranked[]; vector?: Ranked[] };
    } = {},
  ): Promise<RetrievalHit[]> {
    if (actor) await requireTier(this.em(), actor, projectId, 'use');
    else if (!isUuid(projectId)) throw new NotFoundError('not_found', 'Project not found');
    // the semantic side (embed the question, vector neighbours) runs beside the lexical one; it
    // resolves null when there is no embedding source or the embedder fails, and never throws
    const semantic = this.embeddings.neighbours(projectId, question.slice(0, MAX_QUERY_CHARS));
    // the project's reranker, resolved beside them too (null: none configured; never throws)
    const reranking = this.reranker.source(projectId);
    // a short read-only transaction of its own, so the planner setting below stays inside it; one
    // snapshot for all its statements, so a document re-indexed meanwhile (new chunk ids) cannot
    // make the chunks ranked by one statement vanish from the next
    return this.freshEm().transactional(
      async (em) => {
        // Testing `tsv @@ query` row by row detoasts every vector, which the planner does not price:
        // for a common term under LIMIT it would rather scan the table (hundreds of milliseconds at
        // 100k chunks) than read the GIN index's matches. See rank() for the index path it gets.
        await query(em, 'set local enable_seqscan = off');
        const { terms, topK, projectChunks, tableChunks } = await this.analyze(
          em,
          projectId,
          question.slice(0, MAX_QUERY_CHARS),
          opts.topK,
        );
        const lexical = terms.length
          ? await this.rank(em, projectId, terms, Math.max(topK, FUSION_DEPTH), projectChunks * projectChunks > CANDIDATES * tableChunks)
          : [];
        // the fusion point: BM25 ranking and vector neighbours by reciprocal rank fusion (lexical alone without vectors)
        const vectors = await semantic;
        if (opts.timings && vectors) opts.timings.embeddingMs = Math.round(vectors.embeddingMs);
        if (opts.trace) {
          opts.trace.lexical = lexical;
          opts.trace.vector = vectors?.neighbours ?? [];
        }
        // with a reranker, fusion keeps RERANK_CANDIDATES for it to re-score and its best topK stand
        // (on any failure of the reranker, the fused order's topK)
        const reranker = await reranking;
        const depth = reranker ? Math.max(topK, RERANK_CANDIDATES) : topK;
        const fused = vectors?.neighbours.length
          ? fuseRankings(lexical, vectors.neighbours, depth, opts.fusion ?? DEFAULT_FUSION)
          : lexical.slice(0, depth);
        const ranked = reranker
          ? await this.reranker.rerank(em, reranker, question.slice(0, MAX_QUERY_CHARS), fused, topK, opts.timings)
          : fused;
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
  ): Promise<{ terms: QueryTerm[]; topK: number; projectChunks: number; tableChunks: number }> {
    const { plain, bigrams } = analyseText(question);
    const rows = await query<{
      lexeme: string | null;
      positions: number[] | null;
      df: number | null;
      chunk_count: number | null;
      top_k: string | null;
      table_chunks: number;
    }>(
      em,
      `with langs as (select distinct language from documents where project_id = ?),
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
              (select reltuples from pg_class where oid = 'chunks'::regclass) as table_chunks
         from projects p
         left join project_index_stats s on s.project_id = p.id
         left join q on true
         left join term_stats ts on ts.project_id = p.id and ts.term = q.lexeme
        where p.id = ?`,
      [
        projectId,
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
      topK: Math.min(MAX_TOP_K, Math.max(1, Math.floor(k))),
      projectChunks: n,
      tableChunks: Math.max(n, Number(rows[0].table_chunks) || 0),
    };
  }

  /**
   * Candidates, BM25 in SQL, proximity bonus here.
   *
   * Candidates come in tiers from the GIN index, terms sorted rarest first (t1 rarest): chunks
   * with all of t1..tn, then those with t1..tn-1 but not tn, …, then those with t1 but not t2, then
   * those with another rare term but not t1. The tiers are disjoint and ordered by how much of the
   * question (weighted towards rare, high-idf terms) a chunk can match; PostgreSQL runs them in
   * order and stops as soon as CANDIDATES are found, so a later, broader tier is not even read.
   *
   * Where they are read from: when the project holds a large share of all chunks
   * (P² > budget·T, P the project's chunks, T the table's), the GIN index alone — the project is a
   * filter on its matches, so the LIMIT stops the heap scan early. Otherwise the planner may use
   * the project index and test the (few) project rows.
   */
  private async rank(
    em: EntityManager,
    projectId: string,
    terms: QueryTerm[],
    topK: number,
    ginOnly: boolean,
  ): Promise<Array<{ id: string; score: number }>> {
    const postings = terms.reduce((n, t) => n + t.df, 0);
    const exact = postings <= EXACT_POSTINGS;
    const tiers: string[] = [];
    if (exact) tiers.push(terms.map((t) => lexemeLiteral(t.term)).join(' | '));
    else {
      const tierTerms = terms.slice(0, TIER_TERMS).map((t) => lexemeLiteral(t.term));
      for (let k = tierTerms.length; k >= 1; k--) {
        const all = tierTerms.slice(0, k).join(' & ');
        tiers.push(k === tierTerms.length ? all : `${all} & !${tierTerms[k]}`);
      }
      const rare: string[] = [];
      let budget = 0;
      for (const t of terms.slice(1)) {
        if (budget + t.df > RARE_TERMS_BUDGET) break;
        rare.push(lexemeLiteral(t.term));
        budget += t.df;
      }
      if (rare.length) tiers.push(`(${rare.join(' | ')}) & !${tierTerms[0]}`);
    }
    // exact: no chunk containing a term is left out (they number at most `postings`)
    const limit = exact ? Math.max(postings, 1) : CANDIDATES;
    // "offset 0" keeps the planner from merging the project condition into the index choice
    const source = ginOnly
      ? `(select id, project_id, term_count, tsv from chunks where tsv @@ ?::tsquery offset 0) c where c.project_id = ?`
      : `chunks c where c.tsv @@ ?::tsquery and c.project_id = ?`;
    // the vector travels as a TOAST pointer and is only read for the candidates kept
    const tierSql = tiers.map(() => `(select c.id, c.term_count, c.tsv from ${source} limit ${limit})`).join('\n union all ');
    const tierParams = tiers.flatMap((q) => [q, projectId]);
    // each candidate's vector is cut down to the question's terms once (setweight marks them,
    // ts_filter keeps them); BM25 comes from that, and the positions of the leaders feed the
    // proximity bonus
    const rows = await query<{ id: string; bm25: number; positions: Record<string, number[]> }>(
      em,
      `with terms as (select * from jsonb_to_recordset(?::jsonb) as t(term text, idf float8)),
       stats as (select total_terms::float8 / greatest(chunk_count, 1) as avgdl from project_index_stats where project_id = ?),
       cand as (select * from (${tierSql}) tiers limit ${limit}),
       uniq as (select id, term_count, ts_filter(setweight(tsv, 'A', array(select term from terms)), '{a}') as qv from cand),
       scored as (
         select uniq.id, sum(t.idf * (tf.n * ${K1 + 1}) / (tf.n + ${K1} * (1 - ${B} + ${B} * uniq.term_count / greatest(s.avgdl, 1)))) as bm25
           from uniq
          cross join lateral unnest(uniq.qv) u
           join terms t on t.term = u.lexeme
          cross join stats s
          cross join lateral (select (count(*) filter (where p < ${HEADER_POSITION}) + ${HEADER_WEIGHT} * count(*) filter (where p >= ${HEADER_POSITION}))::float8 as n
                                from unnest(u.positions) p) tf
          group by uniq.id
          order by bm25 desc, uniq.id
          limit ?
       )
       select s.id, s.bm25, jsonb_object_agg(u.lexeme, u.positions) as positions
         from scored s
         join uniq on uniq.id = s.id
        cross join lateral unnest(uniq.qv) u
        group by s.id, s.bm25
        order by s.bm25 desc, s.id`,
      [JSON.stringify(terms.map((t) => ({ term: t.term, idf: t.idf }))), projectId, ...tierParams, RERANK_POOL],
    );
    return rows
      .map((r) => ({ id: r.id, score: Number(r.bm25) + proximityBonus(terms, r.positions) }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, topK);
  }
}
