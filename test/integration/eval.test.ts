import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  corpusDocuments,
  corpusQuestions,
  EVAL_DOCS_DIR,
  normText,
  ParsedCorpusDocument,
  parseCorpus,
  verifyLabels,
} from '../support/eval/corpus';
import { askAll, ingestCorpus, report } from '../support/eval/run-eval';
import { factories } from '../support/factories';
import { createTestApp } from '../support/test-app';

/**
 * The independent evaluation corpus (test/fixtures/eval) and its labels, checked with our own
 * parsers: every answer phrase is on its labelled page of its labelled document and in no other
 * document, and the corpus has the shape the retrieval issues require. The numbers it yields are
 * measured by `node dist/bench/eval.js` (npm run bench).
 */
let parsed: ParsedCorpusDocument[];

beforeAll(async () => {
  parsed = await parseCorpus();
}, 240_000);

describe('evaluation corpus labels', () => {
  it('every label holds: the answer is on the labelled page of the labelled document and in no other document', () => {
    const failures = verifyLabels(parsed, corpusQuestions());
    expect(failures).toEqual([]);
  });

  it('the verifier rejects a wrong page, a phrase found elsewhere and a phrase that is nowhere', () => {
    const pdf = parsed.find((d) => d.kind === 'pdf' && d.pages.length >= 10)!;
    const other = parsed.find((d) => d.name !== pdf.name)!;
    // a page of text past the front matter (contents pages are empty: they are not indexed)
    const at = pdf.pages.findIndex((p, i) => i >= 4 && normText(p.text).length > 200);
    const phrase = normText(pdf.pages[at].text).slice(100, 160);
    const base = { style: 'verbatim' as const, lang: 'en', question: 'q', split: 'dev' as const };
    const failures = verifyLabels(parsed, [
      { ...base, id: 'ok', document: pdf.name, page: at + 1, answer: phrase },
      { ...base, id: 'wrong-page', document: pdf.name, page: at + 2, answer: phrase },
      { ...base, id: 'nowhere', document: other.name, answer: 'zqxj no document says this zqxj' },
      { ...base, id: 'elsewhere', document: other.name, answer: phrase },
      { ...base, id: 'pdf-without-page', document: pdf.name, answer: phrase },
    ]);
    expect([...new Set(failures.map((f) => f.id))].sort()).toEqual(['elsewhere', 'nowhere', 'pdf-without-page', 'wrong-page']);
  });

  it('has at least 15 real documents in every accepted format, each with its source, including a PDF of 10+ pages', async () => {
    const docs = await corpusDocuments();
    expect(docs.length).toBeGreaterThanOrEqual(15);
    expect(new Set(docs.map((d) => d.kind))).toEqual(new Set(['pdf', 'docx', 'html', 'markdown', 'text']));
    expect(Math.max(...parsed.filter((d) => d.kind === 'pdf').map((d) => d.pages.length))).toBeGreaterThanOrEqual(10);
    const sources = readFileSync(path.join(EVAL_DOCS_DIR, 'SOURCES.md'), 'utf8');
    for (const d of docs) expect({ name: d.name, listed: sources.includes(`| ${d.name} |`) }).toEqual({ name: d.name, listed: true });
    for (const d of parsed)
      expect({ name: d.name, chars: d.pages.reduce((n, p) => n + p.text.length, 0) > 1000 }).toEqual({ name: d.name, chars: true });
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

  it('has a held-out split: 150+ questions, 100+ of them English paraphrases, over 8+ documents that no dev question asks about', async () => {
    const questions = corpusQuestions();
    const heldout = questions.filter((q) => q.split === 'heldout');
    expect(heldout.length).toBeGreaterThanOrEqual(150);
    expect(heldout.filter((q) => q.lang === 'en' && q.style === 'paraphrase').length).toBeGreaterThanOrEqual(100);
    expect(heldout.filter((q) => q.style === 'verbatim').length).toBeGreaterThanOrEqual(30);
    const heldoutDocs = new Set(heldout.map((q) => q.document));
    expect(heldoutDocs.size).toBeGreaterThanOrEqual(8);
    // every held-out document is in the corpus, and the dev questions never ask about one
    const names = new Set((await corpusDocuments()).map((d) => d.name));
    for (const name of heldoutDocs) expect({ name, inCorpus: names.has(name) }).toEqual({ name, inCorpus: true });
    expect(questions.filter((q) => q.split === 'dev' && heldoutDocs.has(q.document)).map((q) => q.id)).toEqual([]);
    // the held-out documents cover every format
    const kindOf = new Map((await corpusDocuments()).map((d) => [d.name, d.kind]));
    expect(new Set([...heldoutDocs].map((name) => kindOf.get(name)))).toEqual(new Set(['pdf', 'docx', 'html', 'markdown', 'text']));
  });
});

/**
 * Retrieval quality floors on the corpus's dev split (questions.json; the held-out questions are only
 * reported as a whole by `node dist/bench/eval.js`), in the test environment's configuration (no
 * embedding source: lexical retrieval). The floors sit just under what the current ranking measures and
 * well above the ranking before the retrieval issues (recall@5 0.578, recall@1 0.359, Chinese and
 * Japanese recall@5 0.14 / 0.10), which fails them; the issues' own targets (recall@5 ≥ 0.92,
 * recall@1 ≥ 0.75) are not reached yet and are tracked in the README's evaluation table. Every
 * document goes through the real upload and ingestion path; every question through
 * RetrievalService.search, the function chat calls.
 */
describe('evaluation corpus floors (lexical configuration, dev split)', () => {
  it('meets recall@5 ≥ 0.70, recall@1 ≥ 0.45, page accuracy ≥ 0.95, finds Chinese and Japanese answers, and keeps recall@5 ≥ 0.68 ranked as a ten times larger project', async () => {
    const t = await createTestApp({ workers: true });
    try {
      const owner = await factories(t.orm, t.services).makeUser({ platformRole: 'admin' });
      const actor = await t.services.tokens.authenticate(owner.token);
      const docs = await corpusDocuments();
      const { projectId } = await ingestCorpus({ baseUrl: t.baseUrl, dbUrl: t.dbUrl, accessToken: owner.token }, docs, 'eval floors');
      const kindOf = new Map(docs.map((d) => [d.name, d.kind]));
      const ask = (exactPostings?: number) =>
        askAll(
          t.dbUrl,
          // the dev split only: the held-out questions are reported as a whole by the benchmark, never held to floors here
          corpusQuestions().filter((q) => q.split === 'dev'),
          (name) => kindOf.get(name) ?? '?',
          async (question) => {
            const t0 = performance.now();
            const hits = await t.services.search.search(actor, projectId, question, { exactPostings });
            return {
              ids: hits.map((h) => h.chunkId),
              pages: hits.map((h) => h.pageNumber),
              sourcesMs: performance.now() - t0,
              retrievalMs: null,
            };
          },
        );
      const r = report(await ask(), parsed, 'retrieval call');
      process.stdout.write(`eval floors: ${JSON.stringify(r.overall)}\n`);
      const cjk = ['zh', 'ja'].map((lang) => r.byLang[lang]);
      expect({
        recallAt5: r.overall.recallAt5 >= 0.7,
        recallAt1: r.overall.recallAt1 >= 0.45,
        pageAccuracy: r.overall.pageAccuracy >= 0.95,
        cjkRecallAt5: cjk.every((c) => c.recallAt5 >= 0.8),
        cjkEmpty: cjk.reduce((n, c) => n + c.empty, 0),
        overall: r.overall,
      }).toEqual({ recallAt5: true, recallAt1: true, pageAccuracy: true, cjkRecallAt5: true, cjkEmpty: 0, overall: r.overall });

      // ranked as a project ten times larger is ranked: BM25 scores exactly at most a tenth of the
      // chunks' postings (EXACT_POSTINGS is a tenth of 100,000 chunks), so most questions take
      // candidates from the rarest terms' postings and the GIN index's tiers. The tiers alone
      // (the ranking before) measured recall@1 0.352, recall@5 0.481 here.
      const [{ n }] = await t.orm.em
        .fork()
        .getConnection()
        .execute<Array<{ n: number }>>(`select chunk_count::int as n from project_index_stats where project_id = ?`, [projectId]);
      const large = report(await ask(Math.round(n / 10)), parsed, 'retrieval call').overall;
      process.stdout.write(`eval floors, ranked as a project of ${n * 10} chunks: ${JSON.stringify(large)}\n`);
      expect({ recallAt5: large.recallAt5 >= 0.68, recallAt1: large.recallAt1 >= 0.45, large }).toEqual({
        recallAt5: true,
        recallAt1: true,
        large,
      });
    } finally {
      await t.close();
    }
  }, 600_000);
});
