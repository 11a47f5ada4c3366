import { detectAll } from 'tinyld';

/**
 * Text analysis shared by indexing and questions, so both sides produce the same lexemes.
 *
 * - Han, Hiragana, Katakana and Hangul runs are cut into overlapping character bigrams (a run of one
 *   character stays a unigram), as Lucene's CJKAnalyzer does: those scripts have no spaces, and
 *   PostgreSQL's parser would make a whole sentence one "word". The bigrams go into the same
 *   tsvector as the rest (see cjkVectorLiteral), so ranking stays one query.
 * - Everything else (Latin, Cyrillic, Greek, digits, …) is left to the document's PostgreSQL
 *   text-search configuration, with the CJK runs blanked out so a Chinese sentence containing
 *   "PostgreSQL 15" still yields `postgresql` and `15`.
 */

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc\u3005]+/gu;
/** PostgreSQL's limit on a tsvector position. */
const MAX_POSITION = 16383;

export interface AnalysedText {
  /** The text with CJK runs replaced by spaces: for to_tsvector(config, …). */
  plain: string;
  /** The CJK bigrams in text order (empty when the text has none). */
  bigrams: string[];
}

/** Splits text into its non-CJK part and the bigrams of its CJK runs. */
export function analyseText(text: string): AnalysedText {
  const bigrams: string[] = [];
  const plain = text.replace(CJK_RUN, (run) => {
    // NFKC folds half-width katakana and compatibility ideographs onto their usual forms
    const chars = Array.from(run.normalize('NFKC').toLowerCase());
    if (chars.length === 1) bigrams.push(chars[0]);
    for (let i = 0; i + 1 < chars.length; i++) bigrams.push(chars[i] + chars[i + 1]);
    return ' ';
  });
  return { plain, bigrams };
}

/**
 * The bigrams as a tsvector literal (`'保修':1 '修期':2 …`), positions counting from 1 in text
 * order; null when there are none. Concatenated after a configuration's vector with `||`,
 * PostgreSQL shifts these positions past it, so adjacent bigrams stay adjacent (phrase bonus).
 */
export function cjkVectorLiteral(bigrams: string[]): string | null {
  if (!bigrams.length) return null;
  const positions = new Map<string, number[]>();
  bigrams.forEach((b, i) => {
    const list = positions.get(b) ?? [];
    if (list.length < 256) list.push(Math.min(MAX_POSITION, i + 1)); // tsvector keeps at most 256 positions a lexeme
    positions.set(b, list);
  });
  return [...positions].map(([lexeme, pos]) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}':${[...new Set(pos)].join(',')}`).join(' ');
}

/**
 * ISO 639-1 codes → PostgreSQL's built-in text-search configurations (PostgreSQL 14–18 ship these;
 * a configuration missing from the server is skipped at run time, see configFor in SQL callers).
 * Languages without one (Chinese, Japanese, Korean, Polish, …) are indexed with `simple`.
 */
export const TEXT_SEARCH_CONFIGS: Readonly<Record<string, string>> = {
  ar: 'arabic',
  hy: 'armenian',
  eu: 'basque',
  ca: 'catalan',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  el: 'greek',
  hi: 'hindi',
  hu: 'hungarian',
  id: 'indonesian',
  ga: 'irish',
  it: 'italian',
  lt: 'lithuanian',
  ne: 'nepali',
  no: 'norwegian',
  nb: 'norwegian',
  nn: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sr: 'serbian',
  es: 'spanish',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
  yi: 'yiddish',
};

/** Language codes a client may state on upload: ISO 639-1, two lower-case letters. */
export const LANGUAGE_CODE = /^[a-z]{2}$/;

/** How much of a document language detection reads (it is stable well before this). */
const DETECT_CHARS = 4000;
/** Below this confidence tinyld's best guess is not trusted. */
const MIN_ACCURACY = 0.1;

/**
 * The document's language as an ISO 639-1 code, from a sample of its text; null when the text is
 * too short or too mixed to tell. A text that is mostly CJK is classified by its script first:
 * tinyld reads very short Chinese text as other languages.
 */
export function detectLanguage(text: string): string | null {
  const sample = text.slice(0, DETECT_CHARS).replace(/\s+/g, ' ').trim();
  if (sample.length < 3) return null;
  const letters = sample.match(/\p{L}/gu)?.length ?? 0;
  const cjk = sample.match(CJK_RUN)?.join('') ?? '';
  if (letters && cjk.length / letters > 0.3) {
    if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(cjk)) return 'ja';
    if (/\p{Script=Hangul}/u.test(cjk)) return 'ko';
    return 'zh';
  }
  const [best] = detectAll(sample);
  return best && best.accuracy >= MIN_ACCURACY && LANGUAGE_CODE.test(best.lang) ? best.lang : null;
}

/**
 * The configuration name for a language (null → the fallback, normally SEARCH_LANGUAGE); `simple`
 * for a known language without a stemmer of its own.
 */
export function configForLanguage(language: string | null | undefined, fallback: string): string {
  if (!language) return fallback;
  return TEXT_SEARCH_CONFIGS[language] ?? 'simple';
}
