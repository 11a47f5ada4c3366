import type { QueryTerm } from './bm25';
import type { Ranked } from './fusion';

/**
 * "Nothing relevant" (issue 35, section 5): when the project's documents hold nothing on a
 * question, search() returns no passage at all, so that the prompt can say so and the web app can
 * show "No passage in this project's documents matched", instead of citing whatever ranked first.
 *
 * Two rules, both on the lexical evidence, so they hold whatever embedder (or none) a deployment
 * has (vector neighbours always exist, and fused scores are normalised per question: the fused
 * leader scores the same whether the question is on topic or not):
 * - the content-word rule: no passage shares a content word (an indexed, non-stop-word lexeme)
 *   with the question — the lexical ranking is empty;
 * - the relevance floor: the best passage's BM25 score (with its proximity bonus) is below
 *   RELEVANCE_FLOOR of the question's attainable weight (questionWeight).
 */

/**
 * The floor, measured on the development split of the evaluation (`node dist/bench/relevance-floor.js`,
 * README "Nothing relevant"): the largest two-decimal value below the lowest relevance of any
 * development question (0.136, a Japanese paraphrase answered first; every one of the 390 has
 * its answer in the corpus), so that it drops none of them. It is low: paraphrased questions in
 * other languages share one or two words with their passage, as much as an off-topic question
 * shares with some passage by chance (off-topic questions measured 0.14–0.47), so lexical
 * evidence alone catches few off-topic questions that share any word with the documents.
 *
 * The largest value below that (0.13) was too high for small projects: in a four-document project
 * the French "Combien de temps dure la garantie ?" shares only "garantie" with its answer and
 * measured 0.118 (test/integration/languages.test.ts), so the floor sits at 0.10, a margin below
 * every answerable question seen. No off-topic question of test/fixtures/eval/off-topic.json
 * scored between 0.10 and 0.13, so the margin costs no catch.
 */
export const RELEVANCE_FLOOR = 0.1;

/**
 * The question's attainable weight: the idf of each of its content words, a word no chunk of the
 * project holds counted at the idf of a term in no chunk (the most a term can weigh). A question
 * whose rarest words the project never uses therefore weighs much more than any passage matches.
 */
export function questionWeight(terms: QueryTerm[], absentWords: number, projectChunks: number): number {
  const unseen = Math.log(1 + (projectChunks + 0.5) / 0.5);
  return terms.reduce((s, t) => s + t.idf, 0) + absentWords * unseen;
}

/**
 * How relevant the project's best passage is to the question: the lexical leader's score over the
 * question's attainable weight (0 when no passage shares a content word with it). About 1 when a
 * passage holds every word of the question once; above 1 with repeated words and phrases.
 */
export function questionRelevance(leaderScore: number | undefined, terms: QueryTerm[], absentWords: number, projectChunks: number): number {
  if (leaderScore === undefined) return 0;
  const weight = questionWeight(terms, absentWords, projectChunks);
  return weight > 0 ? leaderScore / weight : 0;
}

/** Whether a question of this relevance gets no passage (below the floor, or no content word in common). */
export const nothingRelevant = (relevance: number, floor = RELEVANCE_FLOOR): boolean => relevance <= 0 || relevance < floor;

/** What a search hands back for evaluation and tuning: its rankings before fusion, and the relevance and what it was computed from. */
export interface SearchTrace {
  lexical?: Ranked[];
  vector?: Ranked[];
  relevance?: number;
  terms?: QueryTerm[];
  absentWords?: number;
  projectChunks?: number;
}
