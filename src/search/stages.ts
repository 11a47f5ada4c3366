import { performance } from 'node:perf_hooks';

/**
 * Where a search's time goes (benchmarks and diagnostics: `retrieval.search(…, { stages })`), in
 * milliseconds. Stages of the lexical side run one after the other inside the search's
 * transaction; the semantic side (source, embed, scan) runs beside them, so the parts do not add
 * up to `total`: `vectorWait` is the time the lexical side then waited for the semantic one.
 */
export interface SearchStages {
  /** BEGIN and the transaction's settings. */
  begin?: number;
  /** The question's analysis: terms, statistics, topK and the reranker's setting (one statement). */
  analyze?: number;
  /** BM25 candidates and scores (one statement) and the proximity bonus. */
  lexical?: number;
  /** The semantic side's embedding source lookup. */
  embedSource?: number;
  /** The question's embedding (the provider's time). */
  embed?: number;
  /** The vector neighbours: the matrix's freshness check and the scan in the scoring threads. */
  scan?: number;
  /** Time the lexical side then waited for the semantic side (and the reranker's resolution). */
  vectorWait?: number;
  /** Resolving the reranker (only when the project may have one). */
  rerankSource?: number;
  /** Fusing the rankings (and reranking, when a reranker answers). */
  fusion?: number;
  /** The final read of the chosen chunks (texts, documents, pages). */
  hydrate?: number;
  /** COMMIT. */
  commit?: number;
  /** The whole search. */
  total?: number;
}

/** A stopwatch writing into `stages` (a no-op without one). */
export function stopwatch(stages: SearchStages | undefined): (stage: keyof SearchStages, since: number) => number {
  return (stage, since) => {
    const now = performance.now();
    if (stages) stages[stage] = (stages[stage] ?? 0) + (now - since);
    return now;
  };
}
