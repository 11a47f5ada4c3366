import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { requireTier } from '../access/resolver';
import { NotFoundError } from '../errors';
import { query } from '../ingest/index-writer';
import { isUuid } from '../validation';
import { BaseService } from './context';

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
/** BM25 parameters (the usual defaults). */
const K1 = 1.2;
const B = 0.75;
/**
 * Candidate budget: the OR query is built from the rarest terms whose document frequencies add up
 * to at most this many chunks, so a question containing a very common word never makes us read
 * every chunk that contains it. Chunks matching only the skipped common terms could score at most
 * Σ idf·(k1+1) of those terms, which is small by construction (their idf is low).
 */
const CANDIDATE_BUDGET = 3000;
/** Chunks matching all the terms are always candidates (up to this many). */
const ALL_TERMS_BUDGET = 1000;
/** How many BM25 leaders get the phrase/proximity bonus before the final cut. */
const RERANK_POOL = 50;
/** Weight of the proximity bonus relative to a term's idf. */
const PROXIMITY_WEIGHT = 0.6;
/** Longest question considered (characters) and most distinct terms used. */
const MAX_QUERY_CHARS = 2000;
const MAX_TERMS = 32;

interface QueryTerm {
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
  /**
   * The `topK` best chunks for `question` in the project (default: the project's `settings.topK`,
   * else 6). With an actor, `use` on the project is checked first; chat passes null after it has
   * authorized the caller itself.
   */
  async search(actor: Actor | null, projectId: string, question: string, opts: { topK?: number } = {}): Promise<RetrievalHit[]> {
    const em = this.em();
    if (actor) await requireTier(em, actor, projectId, 'use');
    else if (!isUuid(projectId)) throw new NotFoundError('not_found', 'Project not found');

    const { terms, topK } = await this.analyze(em, projectId, question.slice(0, MAX_QUERY_CHARS), opts.topK);
    if (!terms.length) return [];
    const ranked = await this.rank(em, projectId, terms, topK);
    if (!ranked.length) return [];
    const rows = await query<{ id: string; document_id: string; name: string; page_number: number; text: string; context: string }>(
      em,
      `select c.id, c.document_id, d.name, c.page_number, c.text, c.context
         from chunks c join documents d on d.id = c.document_id
        where c.id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`,
      [JSON.stringify(ranked.map((r) => r.id))],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ranked.flatMap((r) => {
      const row = byId.get(r.id);
      return row ? [{ chunkId: r.id, documentId: row.document_id, documentName: row.name, pageNumber: row.page_number, text: row.text, context: row.context, score: Math.round(r.score * 1e4) / 1e4 }] : [];
    });
  }

  /**
   * The question's index terms (same configuration and unaccenting as the index) with their
   * document frequency and BM25 idf in this project, and the number of chunks to return.
   */
  private async analyze(em: EntityManager, projectId: string, question: string, topK?: number): Promise<{ terms: QueryTerm[]; topK: number }> {
    const rows = await query<{ lexeme: string | null; positions: number[] | null; df: number | null; chunk_count: number | null; top_k: string | null }>(
      em,
      `select q.lexeme, q.positions, ts.df, s.chunk_count, p.settings->>'topK' as top_k
         from projects p
         left join project_index_stats s on s.project_id = p.id
         left join lateral unnest(to_tsvector(?::regconfig, docqa_unaccent(?))) q on true
         left join term_stats ts on ts.project_id = p.id and ts.term = q.lexeme
        where p.id = ?`,
      [this.config.searchLanguage, question, projectId],
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
    return { terms, topK: Math.min(MAX_TOP_K, Math.max(1, Math.floor(k))) };
  }

  /** Candidates (rarest terms first, OR; plus all-terms AND), BM25 in SQL, proximity bonus here. */
  private async rank(em: EntityManager, projectId: string, terms: QueryTerm[], topK: number): Promise<Array<{ id: string; score: number }>> {
    const orTerms: QueryTerm[] = [];
    let budget = 0;
    for (const t of terms) {
      if (orTerms.length && budget + t.df > CANDIDATE_BUDGET) break;
      orTerms.push(t);
      budget += t.df;
    }
    const orQuery = orTerms.map((t) => lexemeLiteral(t.term)).join(' | ');
    const andQuery = terms.length > orTerms.length ? terms.map((t) => lexemeLiteral(t.term)).join(' & ') : orQuery;
    const rows = await query<{ id: string; bm25: number; positions: Record<string, number[]> }>(
      em,
      `with cand as (
         (select id from chunks where project_id = ? and tsv @@ ?::tsquery limit ?)
         union
         (select id from chunks where project_id = ? and tsv @@ ?::tsquery limit ?)
       ),
       terms as (select * from jsonb_to_recordset(?::jsonb) as t(term text, idf float8)),
       stats as (select chunk_count, total_terms::float8 / greatest(chunk_count, 1) as avgdl from project_index_stats where project_id = ?),
       hits as (
         select c.id, c.term_count, u.lexeme, u.positions
           from cand join chunks c on c.id = cand.id
          cross join lateral unnest(ts_filter(setweight(c.tsv, 'A', array(select term from terms)), '{a}')) u
       )
       select h.id,
              sum(t.idf * (tf.n * ${K1 + 1}) / (tf.n + ${K1} * (1 - ${B} + ${B} * h.term_count / greatest(s.avgdl, 1)))) as bm25,
              jsonb_object_agg(h.lexeme, h.positions) as positions
         from hits h
         join terms t on t.term = h.lexeme
         cross join stats s
         cross join lateral (select coalesce(array_length(h.positions, 1), 1)::float8 as n) tf
        group by h.id
        order by bm25 desc, h.id
        limit ?`,
      [projectId, orQuery, CANDIDATE_BUDGET, projectId, andQuery, ALL_TERMS_BUDGET, JSON.stringify(terms.map((t) => ({ term: t.term, idf: t.idf }))), projectId, RERANK_POOL],
    );
    return rows
      .map((r) => ({ id: r.id, score: Number(r.bm25) + proximityBonus(terms, r.positions) }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, topK);
  }
}
