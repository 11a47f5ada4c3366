import { detect } from 'tinyld';

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

/**
 * A token worth splitting: letters or digits joined by `.` or `/` (dotted names, paths, hosts:
 * PostgreSQL's parser keeps `os.path.join` and `/etc/ssh/ssh_config` whole), or a letter case
 * change inside a word (CamelCase, `X11Forwarding`). Hyphenated words and snake_case are already
 * split by PostgreSQL's parser (it indexes `no-clobber` whole and as `no`, `clobber`).
 */
const IDENTIFIER = /[\p{L}\p{N}_]+(?:[./:@=][\p{L}\p{N}_-]+)*/gu;
const CASE_CHANGE = /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}{2}|\p{L}\p{N}+\p{L}/u;
const JOINED = /[\p{L}\p{N}][./:@][\p{L}\p{N}]/u;
/** An identifier part is indexed when it has a letter and at least two characters. */
const USEFUL_PART = /^(?=.*\p{L})[\p{L}\p{N}]{2,}$/u;
/** Parts added per identifier (a long path or dotted name adds no more than this). */
const MAX_PARTS = 8;

/** The parts of one identifier: `MaxAuthTries` → Max Auth Tries; `os.path.join` → os path join. */
export function identifierParts(token: string): string[] {
  if (!CASE_CHANGE.test(token) && !JOINED.test(token)) return [];
  const parts = token
    .split(/[^\p{L}\p{N}]+/u)
    .flatMap((p) =>
      p
        .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
        .replace(/(\p{Lu})(\p{Lu}\p{Ll}{2,})/gu, '$1 $2')
        .replace(/(\p{L})(\p{N}+)(?=\p{L})/gu, '$1$2 ')
        .split(' '),
    )
    .filter((p) => USEFUL_PART.test(p));
  // a token that is its own only part (e.g. `e.g` → nothing useful) adds nothing
  return parts.length > 1 || (parts.length === 1 && parts[0] !== token) ? parts.slice(0, MAX_PARTS) : [];
}

/**
 * Technical vocabulary understood: each identifier is followed by its parts, so `MaxAuthTries`
 * is indexed whole and as `max auth tries` (a question about "auth tries" finds it, and one that
 * names `MaxAuthTries` still matches the whole token). Questions get the same expansion.
 */
export function expandIdentifiers(text: string): string {
  return text.replace(IDENTIFIER, (token) => {
    const parts = identifierParts(token);
    return parts.length ? `${token} ${parts.join(' ')}` : token;
  });
}

/** Splits text into its non-CJK part (identifiers expanded) and the bigrams of its CJK runs. */
export function analyseText(text: string): AnalysedText {
  const bigrams: string[] = [];
  const plain = text.replace(CJK_RUN, (run) => {
    // NFKC folds half-width katakana and compatibility ideographs onto their usual forms
    const chars = Array.from(run.normalize('NFKC').toLowerCase());
    if (chars.length === 1) bigrams.push(chars[0]);
    for (let i = 0; i + 1 < chars.length; i++) bigrams.push(chars[i] + chars[i + 1]);
    return ' ';
  });
  return { plain: expandIdentifiers(plain), bigrams };
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
  return [...positions]
    .map(([lexeme, pos]) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}':${[...new Set(pos)].join(',')}`)
    .join(' ');
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
const DETECT_CHARS = 8000;
/** Segments (sentences, lines) voted on, and the letters a segment needs to count. */
const DETECT_SEGMENTS = 200;
const SEGMENT_LETTERS = 20;
/**
 * Languages written in a script of their own: a vote for one of them from a segment without that
 * script is noise (tinyld reads some Latin-script technical text as Hindi, for instance).
 */
const SCRIPT_OF: Record<string, RegExp> = {
  hi: /\p{Script=Devanagari}/u,
  ne: /\p{Script=Devanagari}/u,
  mr: /\p{Script=Devanagari}/u,
  ru: /\p{Script=Cyrillic}/u,
  uk: /\p{Script=Cyrillic}/u,
  bg: /\p{Script=Cyrillic}/u,
  sr: /\p{Script=Cyrillic}/u,
  be: /\p{Script=Cyrillic}/u,
  mk: /\p{Script=Cyrillic}/u,
  el: /\p{Script=Greek}/u,
  ar: /\p{Script=Arabic}/u,
  fa: /\p{Script=Arabic}/u,
  ur: /\p{Script=Arabic}/u,
  he: /\p{Script=Hebrew}/u,
  yi: /\p{Script=Hebrew}/u,
  ta: /\p{Script=Tamil}/u,
  hy: /\p{Script=Armenian}/u,
  th: /\p{Script=Thai}/u,
  ka: /\p{Script=Georgian}/u,
  bn: /\p{Script=Bengali}/u,
};

/**
 * The document's language as an ISO 639-1 code, from a sample of its text; null when the text is
 * too short or too mixed to tell. A text that is mostly CJK is classified by its script. Otherwise
 * tinyld (built for short texts) classifies each sentence or line and the majority (by length) wins, which
 * keeps code, option names and URLs in technical documents from swaying the whole document.
 */
export function detectLanguage(text: string): string | null {
  const sample = text.slice(0, DETECT_CHARS);
  const letters = sample.match(/\p{L}/gu)?.length ?? 0;
  if (letters < 3) return null;
  const cjk = sample.match(CJK_RUN)?.join('') ?? '';
  if (cjk.length / letters > 0.3) {
    if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(cjk)) return 'ja';
    if (/\p{Script=Hangul}/u.test(cjk)) return 'ko';
    return 'zh';
  }
  const segments = sample
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => (s.match(/\p{L}/gu)?.length ?? 0) >= SEGMENT_LETTERS)
    .slice(0, DETECT_SEGMENTS);
  // a short text is one segment
  if (!segments.length) segments.push(sample.replace(/\s+/g, ' ').trim());
  const votes = new Map<string, number>();
  for (const segment of segments) {
    const lang = detect(segment.slice(0, 400));
    if (!lang || !LANGUAGE_CODE.test(lang) || (SCRIPT_OF[lang] && !SCRIPT_OF[lang].test(segment))) continue;
    // weighted by length: prose sentences outweigh command lines and lists of names
    votes.set(lang, (votes.get(lang) ?? 0) + segment.length);
  }
  const [best] = [...votes].sort((a, b) => b[1] - a[1]);
  return best ? best[0] : null;
}

/**
 * Chinese, Japanese and Korean: their own script is indexed as bigrams; the Latin words in them
 * (option names, product names, quoted English) are English far more often than not, so those get
 * the fallback configuration rather than `simple` — `simple` would keep English stop words, whose
 * rarity in the project would then give them a high idf.
 */
const CJK_LANGUAGES = new Set(['zh', 'ja', 'ko']);

/**
 * The configuration name for a language (null → the fallback, normally SEARCH_LANGUAGE); `simple`
 * for a known language without a stemmer of its own.
 */
export function configForLanguage(language: string | null | undefined, fallback: string): string {
  if (!language || CJK_LANGUAGES.has(language)) return fallback;
  return TEXT_SEARCH_CONFIGS[language] ?? 'simple';
}

/** configForLanguage as a table, for SQL (languages not in it use `simple`, null the fallback). */
export function languageConfigTable(fallback: string): Record<string, string> {
  return { ...TEXT_SEARCH_CONFIGS, ...Object.fromEntries([...CJK_LANGUAGES].map((l) => [l, fallback])) };
}

/**
 * The CTE `langs`: the languages of a project's documents (null among them when some have none),
 * skipping through documents_project_language_index, a probe per language, instead of reading every
 * document (a project of 50,000 documents took ~50 ms a question). Its SQL needs `with recursive`
 * and takes its parameters in this order, before any of the statement's own.
 */
export function projectLanguages(projectId: string): { sql: string; params: string[] } {
  const sql = `named(language) as (
    (select language from documents where project_id = ? and language is not null order by language limit 1)
    union all
    select (select d.language from documents d where d.project_id = ? and d.language > named.language order by d.language limit 1)
      from named where named.language is not null),
  langs as (select language from named where language is not null
            union all
            -- nulls sort last in the index: the project's last entry is null when any document has no language
            select null from (select language from documents where project_id = ? order by language desc limit 1) last
             where last.language is null)`;
  return { sql, params: [projectId, projectId, projectId] };
}
