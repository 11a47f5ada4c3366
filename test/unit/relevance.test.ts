import type { QueryTerm } from '../../src/search/bm25';
import { nothingRelevant, questionRelevance, questionWeight, RELEVANCE_FLOOR } from '../../src/search/relevance';

/** "Nothing relevant" (src/search/relevance.ts): the content-word rule and the relevance floor. */
const term = (t: string, idf: number): QueryTerm => ({ term: t, positions: [0], df: 1, idf });

it("weighs a question by its words' idf, a word no chunk holds at the idf of a term in no chunk", () => {
  const unseen = Math.log(1 + 1000.5 / 0.5);
  expect(questionWeight([term('pump', 2), term('valv', 3)], 0, 1000)).toBeCloseTo(5);
  expect(questionWeight([term('pump', 2)], 2, 1000)).toBeCloseTo(2 + 2 * unseen);
});

it("is the leader's score over the question's weight, and 0 when no passage shares a content word", () => {
  expect(questionRelevance(2.5, [term('pump', 2), term('valv', 3)], 0, 1000)).toBeCloseTo(0.5);
  expect(questionRelevance(undefined, [term('pump', 2)], 0, 1000)).toBe(0);
  expect(questionRelevance(undefined, [], 3, 1000)).toBe(0);
  expect(questionRelevance(1, [], 0, 1000)).toBe(0);
});

it('answers nothing below the floor or without a shared word, whatever floor the caller sets', () => {
  expect(nothingRelevant(0)).toBe(true);
  expect(nothingRelevant(0, 0)).toBe(true);
  expect(nothingRelevant(RELEVANCE_FLOOR * 0.99)).toBe(true);
  expect(nothingRelevant(RELEVANCE_FLOOR)).toBe(false);
  expect(nothingRelevant(0.01, 0)).toBe(false);
  // one rare word matched among four absent ones falls below the floor
  const lonely = questionRelevance(1.2, [term('budapest', 2)], 4, 2354);
  expect(nothingRelevant(lonely)).toBe(true);
});
