/**
 * Deterministic synthetic prose for the documents benchmarks: English function words and common
 * business words at the top of a Zipf distribution (so stop words and a few content words are very
 * frequent, as in real documents), followed by tens of thousands of made-up words (the long tail
 * of rare terms that makes BM25's idf matter).
 */

/** mulberry32: a small seeded generator, so every run produces the same corpus. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = (
  'the of and to a in is for that on with as are be by this it or at from an will must not all may ' +
  'any which have has can their employees company data customer time days policy support service ' +
  'system report access team manager month year process request information account security ' +
  'within should each new number hours working approval travel cost office product network device ' +
  'users employee business week review contract update password document project plan payment ' +
  'management change order quality training period level standard required limit per rate price ' +
  'internal external public personal group department approved provided available general total ' +
  'first last next other local central annual monthly daily weekly regular special specific'
).split(' ');

const SYLLABLES = [
  'ka',
  'lo',
  'mer',
  'tin',
  'sa',
  'vor',
  'el',
  'quin',
  'dra',
  'pol',
  'ru',
  'sen',
  'ta',
  'bex',
  'mi',
  'no',
  'gar',
  'fel',
  'os',
  'tre',
  'un',
  'zal',
  'cor',
  'vi',
  'ham',
  'pe',
  'lis',
  'dor',
  'ax',
  'bri',
];

/** `n` words: the common ones first, then made-up words of 2–4 syllables. */
export function vocabulary(n: number, rand: () => number): string[] {
  const words = new Set(COMMON);
  while (words.size < n) {
    const k = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let i = 0; i < k; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
}

/** Draws words with probability ∝ 1/rank^s. */
export function zipf(words: string[], rand: () => number, s = 1.0): () => string {
  const cum = new Float64Array(words.length);
  let total = 0;
  for (let i = 0; i < words.length; i++) cum[i] = total += 1 / Math.pow(i + 1, s);
  return () => {
    const x = rand() * total;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo];
  };
}

export interface ProseGenerator {
  sentence(): string;
  /** Sentences up to about `chars` characters. */
  paragraph(chars: number): string;
}

export function prose(seed: number, vocabularySize = 30_000): ProseGenerator {
  const rand = prng(seed);
  const draw = zipf(vocabulary(vocabularySize, rand), rand);
  const sentence = () => {
    const n = 8 + Math.floor(rand() * 14);
    const words = Array.from({ length: n }, draw);
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    return `${words.join(' ')}.`;
  };
  return {
    sentence,
    paragraph: (chars) => {
      let p = sentence();
      while (p.length < chars) p += ` ${sentence()}`;
      return p;
    },
  };
}
