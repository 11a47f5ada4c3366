import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../../../src/db/orm';
import { detectFormat, MIME_BY_KIND } from '../../../src/ingest/detect';
import { loadConfig } from '../../../src/config';
import { ParserPool } from '../../../src/ingest/parsers/pool';
import type { DocumentKind, ParsedPage } from '../../../src/ingest/types';

/**
 * The independent evaluation corpus (test/fixtures/eval): real public documents written by other
 * projects (SOURCES.md), and questions labelled with the answering document, page and a verbatim
 * answer phrase. Used by the label verifier (test/integration/eval.test.ts) and the evaluation
 * benchmark (bench/eval.ts). No jest imports.
 */
export const EVAL_CORPUS_DIR = path.join(ROOT_DIR, 'test/fixtures/eval');
export const EVAL_DOCS_DIR = path.join(EVAL_CORPUS_DIR, 'docs');

export type QuestionStyle = 'verbatim' | 'paraphrase';

export interface CorpusQuestion {
  id: string;
  question: string;
  /** File name under docs/ of the answering document. */
  document: string;
  /** Page of the answer as our parser counts pages (pdf.js pages for PDFs); required for PDFs. */
  page?: number;
  /** Verbatim text of the answer (matched whitespace-normalised and case-insensitively). */
  answer: string;
  /** `verbatim`: asked in the document's words; `paraphrase`: shares few content words with the answer passage. */
  style: QuestionStyle;
  /** Language of the question (BCP 47 primary tag: en, de, fr, zh, ja). */
  lang: string;
  /** Where the question's wording comes from when not from us (e.g. a FAQ heading of another document). */
  origin?: string;
  /**
   * `dev`: questions.json, used while tuning; `heldout`: questions-heldout.json, written before
   * tuning by someone who did not tune, and only ever reported as a whole (never read one by one).
   */
  split: QuestionSplit;
}

export type QuestionSplit = 'dev' | 'heldout';

/** The question files and the split each one holds. */
export const QUESTION_FILES: ReadonlyArray<{ file: string; split: QuestionSplit }> = [
  { file: 'questions.json', split: 'dev' },
  { file: 'questions-heldout.json', split: 'heldout' },
];

export interface CorpusDocument {
  name: string;
  kind: DocumentKind;
  mimeType: string;
  content: Buffer;
}

export interface ParsedCorpusDocument extends CorpusDocument {
  pages: ParsedPage[];
}

/** Every document of the corpus (SOURCES.md is not one), with the format ingestion would detect. */
export async function corpusDocuments(): Promise<CorpusDocument[]> {
  const names = readdirSync(EVAL_DOCS_DIR)
    .filter((name) => name !== 'SOURCES.md')
    .sort();
  const docs: CorpusDocument[] = [];
  for (const name of names) {
    const content = readFileSync(path.join(EVAL_DOCS_DIR, name));
    const { kind } = await detectFormat(name, undefined, content, { buffer: content });
    if (!kind) throw new Error(`eval corpus: ${name} is not a format ingestion reads`);
    docs.push({ name, kind, mimeType: MIME_BY_KIND[kind], content });
  }
  return docs;
}

/** The labelled questions of every split (QUESTION_FILES; a missing file holds none). */
export function corpusQuestions(): CorpusQuestion[] {
  return QUESTION_FILES.flatMap(({ file, split }) => {
    const p = path.join(EVAL_CORPUS_DIR, file);
    if (!existsSync(p)) return [];
    return (JSON.parse(readFileSync(p, 'utf8')) as Array<Omit<CorpusQuestion, 'split'>>).map((q) => ({ ...q, split }));
  });
}

/** Parses every corpus document with the parsers ingestion uses (format detection, then the parser pool). */
export async function parseCorpus(given?: CorpusDocument[]): Promise<ParsedCorpusDocument[]> {
  const docs = given ?? (await corpusDocuments());
  const out: ParsedCorpusDocument[] = [];
  // the parser pool ingestion uses (every parser runs in its worker threads)
  const config = loadConfig({ JWT_SECRET: 'eval-corpus-eval-corpus', NODE_ENV: 'test' });
  const pool = new ParserPool(config.parseLimits, config.parserPool);
  try {
    for (const d of docs) out.push({ ...d, pages: await pool.parse(d.kind, d.content) });
  } finally {
    await pool.destroy();
  }
  return out;
}

/** Whitespace-normalised, lower-cased (the comparison every label check and hit test uses). */
export const normText = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** Whether `text` contains the answer phrase, whitespace-normalised and case-insensitive. */
export const containsAnswer = (text: string, answer: string): boolean => normText(text).includes(normText(answer));

export interface LabelFailure {
  id: string;
  problem: string;
}

/**
 * Checks every label: the document exists; a PDF's question has a page; the answer phrase occurs
 * on the labelled page (every page of the document when the label has none) and in no other
 * document of the corpus. Also checks the question set's shape (unique ids, known styles).
 */
export function verifyLabels(parsed: ParsedCorpusDocument[], questions: CorpusQuestion[]): LabelFailure[] {
  const failures: LabelFailure[] = [];
  const byName = new Map(parsed.map((d) => [d.name, { doc: d, pages: d.pages.map((p) => ({ n: p.pageNumber, text: normText(p.text) })) }]));
  const seen = new Set<string>();
  for (const q of questions) {
    const fail = (problem: string) => failures.push({ id: q.id, problem });
    if (!q.id || seen.has(q.id)) fail('missing or duplicate id');
    seen.add(q.id);
    if (q.style !== 'verbatim' && q.style !== 'paraphrase') fail(`unknown style ${String(q.style)}`);
    if (!q.lang || !q.question?.trim()) fail('missing lang or question');
    const answer = normText(q.answer ?? '');
    if (answer.length < 3) {
      fail('answer phrase shorter than 3 characters');
      continue;
    }
    const entry = byName.get(q.document);
    if (!entry) {
      fail(`no document ${q.document}`);
      continue;
    }
    if (entry.doc.kind === 'pdf' && q.page === undefined) fail('a PDF label needs a page');
    const onPages = entry.pages.filter((p) => p.text.includes(answer)).map((p) => p.n);
    if (q.page !== undefined && !onPages.includes(q.page))
      fail(`"${q.answer}" is not on page ${q.page} of ${q.document} (found on ${onPages.join(', ') || 'no page'})`);
    if (q.page === undefined && !onPages.length) fail(`"${q.answer}" is not in ${q.document}`);
    for (const [name, other] of byName) {
      if (name !== q.document && other.pages.some((p) => p.text.includes(answer))) fail(`"${q.answer}" also occurs in ${name}`);
    }
  }
  return failures;
}

/** The pages of a document on which an answer phrase occurs (for label writing and page accuracy). */
export function pagesWith(doc: ParsedCorpusDocument, answer: string): number[] {
  return doc.pages.filter((p) => containsAnswer(p.text, answer)).map((p) => p.pageNumber);
}
