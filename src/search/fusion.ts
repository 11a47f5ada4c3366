/**
 * Fusion of the lexical (BM25) and semantic (vector) rankings of one question into one ranking.
 *
 * Equal-weight reciprocal rank fusion (Cormack, Clarke & Büttcher 2009) lets a weak embedder's
 * neighbour outvote an exact, rare keyword match: rank 1 in one list and absent from the other
 * scores about as much as rank 3 in both. The fusion here is weighted, and the weights were
 * measured (README, Evaluation): the lexical ranking counts more than the vector ranking, and a
 * lexical leader that clearly beats the runner-up (an exact match of rare terms) keeps its place.
 */
export interface Ranked {
  id: string;
  score: number;
}

export interface FusionParams {
  /**
   * `rrf` (default): weighted reciprocal rank fusion, a chunk scores Σ weight / (k + rank) over
   * the rankings it appears in (rank from 1). `minmax`: each ranking's scores are min-max
   * normalised to [0, 1] (its best 1, its last 0; absent 0) and weighted, so a vector neighbour
   * moves a chunk only as far as its cosine stands out among the neighbours (k unused).
   */
  method?: 'rrf' | 'minmax';
  /** RRF's rank constant. */
  k: number;
  lexicalWeight: number;
  vectorWeight: number;
  /**
   * Lexical confidence: when the BM25 leader's score is at least this factor above the second's,
   * the leader stays first whatever the vectors say (0 turns it off).
   */
  lexicalLeadRatio: number;
}

/** The paper's constant with equal weights: the fusion before it was measured (kept for comparison). */
export const EQUAL_RRF: FusionParams = { k: 60, lexicalWeight: 1, vectorWeight: 1, lexicalLeadRatio: 0 };

/**
 * The measured default (README, Evaluation, "Embedders and fusion"; `node dist/bench/fusion-tune.js`):
 * one set for whatever embedder a deployment has, chosen on the development split among the sets
 * with which no question style loses more than one question of recall@1 or recall@5 against
 * lexical retrieval, with any of the three embedders that run here (Universal Sentence Encoder
 * lite, GloVe + SIF, the test stub's hashed vectors), best mean recall@1. On the held-out split:
 * paraphrase recall@1 0.28 → 0.293 (USE lite), 0.299 (GloVe), 0.287 (stub); recall@5 unchanged or
 * better; verbatim within one question. Equal-weight RRF (k 60) lost 19–24 points of recall@1 there.
 */
export const DEFAULT_FUSION: FusionParams = { method: 'minmax', k: 60, lexicalWeight: 1, vectorWeight: 0.1, lexicalLeadRatio: 0 };

/**
 * Fuses the lexical and vector rankings (each best first) into one, best first, cut to `limit`.
 * Ties keep the lexical order, then the id, so results are stable.
 */
export function fuseRankings(lexical: Ranked[], vector: Ranked[], limit: number, params: FusionParams = DEFAULT_FUSION): Ranked[] {
  const fused = new Map<string, { score: number; first: number }>();
  const minmax = params.method === 'minmax';
  const add = (ranking: Ranked[], weight: number, which: number): void => {
    const hi = minmax ? Math.max(...ranking.map((r) => r.score)) : 0;
    const lo = minmax ? Math.min(...ranking.map((r) => r.score)) : 0;
    ranking.forEach((r, i) => {
      const e = fused.get(r.id);
      const s = minmax ? weight * (hi > lo ? (r.score - lo) / (hi - lo) : 1) : weight / (params.k + i + 1);
      if (e) e.score += s;
      else fused.set(r.id, { score: s, first: which * 1e6 + i });
    });
  };
  add(lexical, params.lexicalWeight, 0);
  add(vector, params.vectorWeight, 1);
  const out = [...fused.entries()]
    .sort((a, b) => b[1].score - a[1].score || a[1].first - b[1].first || (a[0] < b[0] ? -1 : 1))
    .map(([id, e]) => ({ id, score: e.score }));
  const leader = lexical[0];
  if (
    leader &&
    params.lexicalLeadRatio > 0 &&
    (lexical.length === 1 || leader.score >= params.lexicalLeadRatio * Math.max(lexical[1].score, 1e-9)) &&
    out[0]?.id !== leader.id
  ) {
    const at = out.findIndex((r) => r.id === leader.id);
    const [moved] = out.splice(at, 1);
    out.unshift({ id: moved.id, score: out[0].score + 1e-9 });
  }
  return out.slice(0, limit);
}

/** Equal-weight reciprocal rank fusion of any number of rankings (k = 60). */
export function reciprocalRankFusion(rankings: Ranked[][], limit: number, k = 60): Ranked[] {
  const fused = new Map<string, { score: number; first: number }>();
  rankings.forEach((ranking, which) => {
    ranking.forEach((r, i) => {
      const e = fused.get(r.id);
      const add = 1 / (k + i + 1);
      if (e) e.score += add;
      else fused.set(r.id, { score: add, first: which * 1e6 + i });
    });
  });
  return [...fused.entries()]
    .sort((a, b) => b[1].score - a[1].score || a[1].first - b[1].first || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([id, e]) => ({ id, score: e.score }));
}
