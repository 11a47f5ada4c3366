/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): a chunk scores Σ 1 / (k + rank) over
 * the rankings it appears in (rank from 1). It needs no calibration between BM25 scores and cosine
 * similarities, which live on unrelated scales; k = 60 is the paper's constant, and keeps a chunk
 * that one ranking puts first from outweighing one that both rank well.
 */
export const RRF_K = 60;

export interface Ranked {
  id: string;
  score: number;
}

/**
 * Fuses rankings (each best first) into one, best first, cut to `limit`. Ties keep the order of the
 * first ranking (lexical), then the id, so results are stable.
 */
export function reciprocalRankFusion(rankings: Ranked[][], limit: number, k = RRF_K): Ranked[] {
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
