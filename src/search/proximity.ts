// The phrase/proximity bonus BM25's leaders get before the final cut (search/bm25.ts rankBm25).
/** What the bonus needs of a question term (bm25.ts QueryTerm). */
type Term = { term: string; positions: number[]; idf: number };

/** Weight of the proximity bonus relative to a term's idf. */
const PROXIMITY_WEIGHT = 0.6;
/**
 * Phrase/proximity bonus: for each pair of terms next to each other in the question, a chunk
 * where they appear in the same order at the same distance (a phrase) earns the rarer term's idf;
 * within three words of that, half of it; in reverse order nearby, a quarter.
 */
export function proximityBonus(terms: Term[], positions: Record<string, number[]>): number {
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
