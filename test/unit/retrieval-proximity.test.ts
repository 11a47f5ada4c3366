import { proximityBonus } from '../../src/search/proximity';

const term = (t: string, position: number, idf: number) => ({ term: t, positions: [position], df: 1, idf });

describe('proximity bonus', () => {
  // question "password reset policy": terms at positions 1, 2, 3
  const terms = [term('password', 1, 2), term('reset', 2, 3), term('polici', 3, 1)];

  it('gives the most to the question words as a phrase, in order', () => {
    const phrase = proximityBonus(terms, { password: [10], reset: [11], polici: [12] });
    const near = proximityBonus(terms, { password: [10], reset: [13], polici: [15] });
    const reversed = proximityBonus(terms, { password: [11], reset: [10], polici: [40] });
    const far = proximityBonus(terms, { password: [1], reset: [50], polici: [90] });
    expect(phrase).toBeGreaterThan(near);
    expect(near).toBeGreaterThan(reversed);
    expect(reversed).toBeGreaterThan(far);
    expect(far).toBe(0);
  });

  it('weighs a pair by its rarer term, and respects gaps the question itself has', () => {
    // "password ... policy" with one word between them in the question, as in the chunk
    const gapped = [term('password', 1, 2), term('polici', 3, 1)];
    expect(proximityBonus(gapped, { password: [5], polici: [7] })).toBeCloseTo(proximityBonus(gapped, { password: [20], polici: [22] }));
    expect(proximityBonus(gapped, { password: [5], polici: [7] })).toBeGreaterThan(proximityBonus(gapped, { password: [5], polici: [6] }));
    expect(proximityBonus([term('a', 1, 5), term('b', 2, 1)], { a: [1], b: [2] })).toBeLessThan(
      proximityBonus([term('a', 1, 5), term('b', 2, 4)], { a: [1], b: [2] }),
    );
  });

  it('is zero when a term is missing from the chunk', () => {
    expect(proximityBonus(terms, { password: [10] })).toBe(0);
  });
});
