import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql';
import { HEADER_POSITION, HEADER_WEIGHT } from './index-writer';
import { proximityBonus } from './proximity';

export { HEADER_WEIGHT };
/**
 * Lexical ranking of a project's chunks (RetrievalService.search calls rankBm25): BM25F in SQL with
 * the project's term statistics, from term_postings or, for questions of very common words, from
 * candidates (GIN index tiers); then a phrase/proximity bonus for the leaders.
 *
 * BM25 parameters, measured on the development split (lexical, 318 questions): the usual k1 1.2,
 * b 0.75 gave recall@1 0.478, recall@5 0.692; b 0.5 → 0.484, 0.698; b 0.3 → 0.481, 0.701; b 0.9 →
 * 0.469, 0.689; k1 1.6 → 0.475, 0.689; k1 0.9 with b 0.5 → 0.484, 0.711 (chunks are of similar
 * length, so length normalisation matters less; term saturation comes sooner in technical text).
 */
export const K1 = 0.9;
export const B = 0.5;
/** Candidates scored per question, taken in tiers, most promising first (see tierCandidates). */
export const CANDIDATES = 200;
/**
 * The rarest terms used to form tiers (the rest still count in the score): four carry nearly all of
 * a question's idf (at 100k chunks, 8 → 4 took chat-like questions from 28 to 17 ms median, same recall).
 */
const TIER_TERMS = 4;
/**
 * When the question's rarest term is in at most this share of the project's chunks, terms in more
 * than it form no tier (they still count in the score): they hardly narrow a tier, and the GIN index
 * reads all their postings to intersect them (at 1M chunks, "may" in 39 %: a tier of three rare terms
 * 0.9 → 4.7 ms with it). A question of common words only keeps its tiers of common words.
 */
const TIER_COMMON_SHARE = 0.1;
/**
 * Exact BM25 when it is cheap: when the question's terms have at most this many postings in the
 * project (their document frequencies added up), every chunk containing any of them is scored
 * from term_postings, so the BM25 top-k is exact. Only larger projects with common question words
 * go through the tiers, which bound the work. Scoring from the postings costs about 0.75 µs a
 * posting (100k chunks, 2 cores: 42k postings in 32 ms) where the tiers take 5–10 ms whatever the
 * question; at 6k–15k postings the exact path measured 13 ms median against the tiers' 5–8 ms
 * (decision 4, last addendum). Reading the vectors instead, 6000 postings cost up to 60 ms.
 */
export const EXACT_POSTINGS = 10_000;
/** The "other rare terms" tier takes terms whose document frequencies add up to at most this. */
const RARE_TERMS_BUDGET = 3000;
/** How many BM25 leaders get the phrase/proximity bonus before the final cut. */
const RERANK_POOL = 50;
export interface QueryTerm {
  term: string;
  /** Positions of the term in the question (word order, for the phrase bonus). */
  positions: number[];
  df: number;
  idf: number;
}

/** Quotes a lexeme for a tsquery literal. */
const lexemeLiteral = (t: string): string => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

export type Leader = { id: string; bm25: number; positions: Record<string, number[]> };

/**
 * BM25 from the postings of the terms of `terms` (a relation `t` of term and idf; its parameters
 * come first, then the project's id), every chunk containing any of them, the best `limit`. Uses
 * the CTE `stats`. The rows come from term_postings_cover alone (an index-only scan: see TermPosting).
 * With `count` 1 a chunk is in the postings once, so its score needs no grouping (at 1M chunks, a
 * term of 9,589 postings: 27 → 15 ms).
 */
const fromPostings = (terms: string, limit: string, count: number): string => {
  const weight = `t.idf * (u.tf::float8 * ${K1 + 1}) / (u.tf::float8 + ${K1} * (1 - ${B} + ${B}::float8 * u.len / greatest(s.avgdl, 1)))`;
  return `select u.id, ${count === 1 ? weight : `sum(${weight})`} as bm25
     from ${terms}
     join term_postings tp on tp.project_id = ? and tp.term = t.term
    cross join lateral unnest(tp.chunk_ids, tp.tfs, tp.lens) u(id, tf, len)
    cross join stats s
    ${count === 1 ? '' : 'group by u.id'}
    order by bm25 desc, u.id
    limit ${limit}`;
};

/**
 * Exact BM25F from the postings (term_postings): every chunk containing a question term is
 * scored from the term frequencies and lengths stored there, and only the RERANK_POOL leaders'
 * vectors are read (for the positions the proximity bonus needs).
 */
export async function leadersFromPostings(em: EntityManager, projectId: string, terms: QueryTerm[]): Promise<Leader[]> {
  // in lexeme order (as a vector lists them), so that every chunk's terms are added up in one order
  // and chunks of equal term frequencies and lengths get scores equal to the last bit
  const ordered = [...terms].sort((a, b) => Buffer.compare(Buffer.from(a.term), Buffer.from(b.term)));
  return query<Leader>(
    em,
    `with terms as (select * from jsonb_to_recordset(?::jsonb) as t(term text, idf float8)),
     stats as (select total_terms::float8 / greatest(chunk_count, 1) as avgdl from project_index_stats where project_id = ?),
     scored as (${fromPostings('terms t', '?', ordered.length)})
     select s.id, s.bm25, jsonb_object_agg(u.lexeme, u.positions) as positions
       from scored s
       join chunks c on c.id = s.id
      cross join lateral unnest(ts_filter(setweight(c.tsv, 'A', array(select term from terms)), '{a}')) u
      group by s.id, s.bm25
      order by s.bm25 desc, s.id`,
    [JSON.stringify(ordered.map((t) => ({ term: t.term, idf: t.idf }))), projectId, projectId, RERANK_POOL],
  );
}

/** SQL selecting candidate chunks (id, term_count, tsv), with its parameters; it may use the CTE `stats`. */
interface Candidates {
  sql: string;
  params: unknown[];
}

/**
 * A tier is read by walking the project's chunks (testing each one's vector) instead of the GIN
 * index when that is expected to be cheaper: a walk costs WALK_US per chunk read (~3 µs), and it
 * reads CANDIDATES / selectivity chunks (terms taken as independent; at most SCAN_SLACK times that);
 * a GIN bitmap costs GIN_US per posting of its terms, more for one positive term (every match goes
 * into the bitmap before LIMIT can stop it) than for an AND, which skips through the longer lists.
 * On 2 cores: "company" at 1M chunks (318,350) 152 ms as a bitmap; at 200k "time" 16.3 → 5.4 ms walked.
 */
const WALK_US = 3;
const GIN_US = { single: 0.5, and: 0.1 };
const SCAN_ROWS = 20_000;
const SCAN_SLACK = 4;

/** The project's chunks, and whether tiers read the GIN index alone (see tierCandidates); `walk` forces a choice (tests). */
export interface ProjectSize {
  projectChunks: number;
  ginOnly: boolean;
  walk?: boolean;
}

/**
 * Candidates in tiers from the GIN index, terms sorted rarest first (t1 rarest): chunks
 * with all of t1..tn, then those with t1..tn-1 but not tn, …, then those with t1 but not t2, then
 * those with another rare term but not t1. The tiers are disjoint and ordered by how much of the
 * question (weighted towards rare, high-idf terms) a chunk can match; PostgreSQL runs them in
 * order and stops as soon as CANDIDATES are found, so a later, broader tier is not even read.
 *
 * Where they are read from: when the project holds a large share of all chunks
 * (P² > budget·T, P the project's chunks, T the table's), the GIN index alone — the project is a
 * filter on its matches, so the LIMIT stops the heap scan early. Otherwise the planner may use
 * the project index and test the (few) project rows. A tier of frequent terms may instead walk the
 * project's chunks in their index order, testing each, when that is expected to cost less (WALK_US).
 */
export function tierCandidates(projectId: string, terms: QueryTerm[], size: ProjectSize): Candidates {
  const tiers: Array<{ query: string; terms: QueryTerm[]; without?: QueryTerm }> = [];
  const n = Math.max(size.projectChunks, 1);
  const common = (t: QueryTerm): boolean => t.df > TIER_COMMON_SHARE * n;
  const tierTerms = (common(terms[0]) ? terms : terms.filter((t) => !common(t))).slice(0, TIER_TERMS);
  const literals = tierTerms.map((t) => lexemeLiteral(t.term));
  for (let k = literals.length; k >= 1; k--) {
    const all = literals.slice(0, k).join(' & ');
    tiers.push(
      k === literals.length
        ? { query: all, terms: tierTerms.slice(0, k) }
        : { query: `${all} & !${literals[k]}`, terms: tierTerms.slice(0, k), without: tierTerms[k] },
    );
  }
  const rare: string[] = [];
  let budget = 0;
  for (const t of terms.slice(1)) {
    if (budget + t.df > RARE_TERMS_BUDGET) break;
    rare.push(lexemeLiteral(t.term));
    budget += t.df;
  }
  if (rare.length) tiers.push({ query: `(${rare.join(' | ')}) & !${literals[0]}`, terms: [] });
  const limit = CANDIDATES;
  const sql: string[] = [];
  const params: unknown[] = [];
  for (const tier of tiers) {
    const postings = tier.terms.reduce((a, t) => a + t.df, 0) + (tier.without?.df ?? 0);
    const selectivity = tier.terms.reduce((p, t) => p * Math.min(1, t.df / n), 1) * (1 - Math.min(1, (tier.without?.df ?? 0) / n));
    const expected = tier.terms.length && selectivity > 0 ? limit / selectivity : Infinity;
    const ginUs = postings * (tier.terms.length === 1 ? GIN_US.single : GIN_US.and);
    if (size.walk !== false && expected <= SCAN_ROWS && (size.walk || expected * WALK_US < ginUs)) {
      // "limit" fences the walk (the planner keeps it an index scan that stops early) and bounds it
      sql.push(
        `(select c.id, c.term_count, c.tsv from (select id, term_count, tsv from chunks where project_id = ? limit ${Math.ceil(expected * SCAN_SLACK)}) c
           where c.tsv @@ ?::tsquery limit ${limit})`,
      );
      params.push(projectId, tier.query);
      continue;
    }
    // "offset 0" keeps the planner from merging the project condition into the index choice
    const source = size.ginOnly
      ? `(select id, project_id, term_count, tsv from chunks where tsv @@ ?::tsquery offset 0) c where c.project_id = ?`
      : `chunks c where c.tsv @@ ?::tsquery and c.project_id = ?`;
    // the vector travels as a TOAST pointer and is only read for the candidates kept
    sql.push(`(select c.id, c.term_count, c.tsv from ${source} limit ${limit})`);
    params.push(tier.query, projectId);
  }
  return { sql: `select * from (${sql.join('\n union all ')}) tiers limit ${limit}`, params };
}

/**
 * Candidates by their exact BM25 on the rarest terms (`essential`, whose postings add up to at
 * most the budget), from term_postings: the CANDIDATES best on them.
 */
function rareCandidates(projectId: string, essential: QueryTerm[]): Candidates {
  const ordered = [...essential].sort((a, b) => Buffer.compare(Buffer.from(a.term), Buffer.from(b.term)));
  return {
    sql: `select c.id, c.term_count, c.tsv from (${fromPostings('jsonb_to_recordset(?::jsonb) as t(term text, idf float8)', String(CANDIDATES), ordered.length)}) p
     join chunks c on c.id = p.id`,
    params: [JSON.stringify(ordered.map((t) => ({ term: t.term, idf: t.idf }))), projectId],
  };
}

/**
 * BM25F over every question term for the candidates of `sources` (their union), from their
 * vectors: each vector is cut down to the question's terms once (setweight marks them, ts_filter
 * keeps them); the positions of the leaders feed the proximity bonus.
 */
async function scoreCandidates(em: EntityManager, projectId: string, terms: QueryTerm[], sources: Candidates[]): Promise<Leader[]> {
  // a chunk found by both sources once, told apart by its id alone (not by comparing whole vectors)
  const candSql =
    sources.length === 1
      ? sources[0].sql
      : `select distinct on (id) id, term_count, tsv from (${sources.map((c) => `(${c.sql})`).join(' union all ')}) both_sources`;
  const candParams = sources.flatMap((c) => c.params);
  return query<Leader>(
    em,
    `with terms as (select * from jsonb_to_recordset(?::jsonb) as t(term text, idf float8)),
     stats as (select total_terms::float8 / greatest(chunk_count, 1) as avgdl from project_index_stats where project_id = ?),
     cand as (${candSql}),
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
    [JSON.stringify(terms.map((t) => ({ term: t.term, idf: t.idf }))), projectId, ...candParams, RERANK_POOL],
  );
}

/** The rarest terms whose postings add up to at most `budget` (none when the rarest alone has more). */
export function rarestWithin(terms: QueryTerm[], budget: number): QueryTerm[] {
  const out: QueryTerm[] = [];
  let n = 0;
  for (const t of [...terms].sort((a, b) => a.df - b.df || (a.term < b.term ? -1 : 1))) {
    if (n + t.df > budget) break;
    out.push(t);
    n += t.df;
  }
  return out;
}

/**
 * BM25F leaders (exact from the postings, or, when the question's terms have more than
 * EXACT_POSTINGS postings, from candidates: the rarest terms' postings and the GIN index's tiers),
 * then the proximity bonus here, and the final cut.
 * `size`: see tierCandidates.
 */
export async function rankBm25(
  em: EntityManager,
  projectId: string,
  terms: QueryTerm[],
  topK: number,
  size: ProjectSize,
  /** The postings scored exactly (EXACT_POSTINGS; smaller in evaluations, to rank a small corpus as a large one is ranked). */
  budget = EXACT_POSTINGS,
): Promise<Array<{ id: string; score: number }>> {
  const postings = terms.reduce((n, t) => n + t.df, 0);
  let rows: Leader[];
  if (postings <= budget) rows = await leadersFromPostings(em, projectId, terms);
  else {
    // the question's terms have too many postings to score them all: candidates come from the
    // tiers of the GIN index, and from the rarest terms' postings where those fit the budget
    const essential = rarestWithin(terms, budget);
    const tiers = tierCandidates(projectId, terms, size);
    rows = await scoreCandidates(em, projectId, terms, essential.length ? [tiers, rareCandidates(projectId, essential)] : [tiers]);
  }
  return rows
    .map((r) => ({ id: r.id, score: Number(r.bm25) + proximityBonus(terms, r.positions) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, topK);
}
