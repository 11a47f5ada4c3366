import { readFileSync } from 'node:fs';
import path from 'node:path';
import { corpusDocuments, corpusQuestions, EVAL_DOCS_DIR, normText, ParsedCorpusDocument, parseCorpus, verifyLabels } from '../support/eval/corpus';

/**
 * The independent evaluation corpus (test/fixtures/eval) and its labels, checked with our own
 * parsers: every answer phrase is on its labelled page of its labelled document and in no other
 * document, and the corpus has the shape the retrieval issues require. The numbers it yields are
 * measured by `node dist/bench/eval.js` (npm run bench).
 */
let parsed: ParsedCorpusDocument[];

beforeAll(async () => {
  parsed = await parseCorpus();
}, 60_000);

describe('evaluation corpus labels', () => {
  it('every label holds: the answer is on the labelled page of the labelled document and in no other document', () => {
    const failures = verifyLabels(parsed, corpusQuestions());
    expect(failures).toEqual([]);
  });

  it('the verifier rejects a wrong page, a phrase found elsewhere and a phrase that is nowhere', () => {
    const pdf = parsed.find((d) => d.kind === 'pdf' && d.pages.length >= 10)!;
    const other = parsed.find((d) => d.name !== pdf.name)!;
    const phrase = normText(pdf.pages[4].text).slice(100, 160);
    const base = { style: 'verbatim' as const, lang: 'en', question: 'q' };
    const failures = verifyLabels(parsed, [
      { ...base, id: 'ok', document: pdf.name, page: 5, answer: phrase },
      { ...base, id: 'wrong-page', document: pdf.name, page: 6, answer: phrase },
      { ...base, id: 'nowhere', document: other.name, answer: 'zqxj no document says this zqxj' },
      { ...base, id: 'elsewhere', document: other.name, answer: phrase },
      { ...base, id: 'pdf-without-page', document: pdf.name, answer: phrase },
    ]);
    expect([...new Set(failures.map((f) => f.id))].sort()).toEqual(['elsewhere', 'nowhere', 'pdf-without-page', 'wrong-page']);
  });

  it('has at least 15 real documents in every accepted format, each with its source, including a PDF of 10+ pages', () => {
    const docs = corpusDocuments();
    expect(docs.length).toBeGreaterThanOrEqual(15);
    expect(new Set(docs.map((d) => d.kind))).toEqual(new Set(['pdf', 'docx', 'html', 'markdown', 'text']));
    expect(Math.max(...parsed.filter((d) => d.kind === 'pdf').map((d) => d.pages.length))).toBeGreaterThanOrEqual(10);
    const sources = readFileSync(path.join(EVAL_DOCS_DIR, 'SOURCES.md'), 'utf8');
    for (const d of docs) expect({ name: d.name, listed: sources.includes(`| ${d.name} |`) }).toEqual({ name: d.name, listed: true });
    for (const d of parsed) expect({ name: d.name, chars: d.pages.reduce((n, p) => n + p.text.length, 0) > 1000 }).toEqual({ name: d.name, chars: true });
  });

  it('has 150+ English questions, mostly paraphrases, and 20+ CJK and 20+ in two other languages', () => {
    const questions = corpusQuestions();
    const count = (pred: (q: (typeof questions)[number]) => boolean) => questions.filter(pred).length;
    expect(count((q) => q.lang === 'en')).toBeGreaterThanOrEqual(150);
    expect(count((q) => q.style === 'paraphrase') * 2).toBeGreaterThanOrEqual(questions.length);
    expect(count((q) => q.lang === 'zh' || q.lang === 'ja')).toBeGreaterThanOrEqual(20);
    const others = new Set(questions.filter((q) => !['en', 'zh', 'ja'].includes(q.lang)).map((q) => q.lang));
    expect(others.size).toBeGreaterThanOrEqual(2);
    for (const lang of others) expect({ lang, n: count((q) => q.lang === lang) >= 10 }).toEqual({ lang, n: true });
    expect(count((q) => !['en', 'zh', 'ja'].includes(q.lang))).toBeGreaterThanOrEqual(20);
    // questions name their documents by file name; no question is asked twice
    expect(new Set(questions.map((q) => q.question)).size).toBe(questions.length);
  });
});
