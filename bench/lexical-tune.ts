import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { corpusDocuments, corpusQuestions, containsAnswer } from '../test/support/eval/corpus';
import { ingestCorpus } from '../test/support/eval/run-eval';
import { factories } from '../test/support/factories';
import { createTestApp } from '../test/support/test-app';
import { ROOT } from './lib/env';
import { withTemplateDatabase } from './lib/template-db';

/**
 * Lexical ranking on the DEVELOPMENT split only, in process, for finding kinds of failure: the
 * corpus is ingested once through the real upload path (services on a fresh test database), every
 * development question goes through `retrieval.search` (topK 50), and each miss at rank 1 is put
 * in one class:
 *
 *  - `wrong-document`: the first hit is from another document;
 *  - `right-document`: the first hit is from the labelled document but lacks the answer, which is
 *    further down (its rank is kept) or not in the top 50;
 *  - `unreachable`: no chunk of the labelled document holds the whole answer phrase (chunking).
 *
 * Held-out questions are never run here. Output: a summary by style and language and by class, and
 * the misses (question, labelled document, top documents) in bench/results/lexical-tune.json.
 *
 * `--exact-postings N` ranks as a large project is ranked: BM25 scores at most N postings exactly
 * (EXACT_POSTINGS, 10,000, is about 7 times this corpus's chunks; at 100k chunks, a tenth of them).
 *
 * `--only-prefix P` asks only the development questions whose id starts with P (e.g. `man-`, the long
 * manuals'); every document is still ingested, as a distractor. Its results go to
 * bench/results/lexical-tune-<P>.json unless `--json` says otherwise.
 *
 *   node dist/bench/lexical-tune.js [--exact-postings N] [--only-prefix P] [--json bench/results/lexical-tune.json]
 */
interface Miss {
  id: string;
  style: string;
  lang: string;
  kind: 'wrong-document' | 'right-document' | 'unreachable';
  /** Rank (1-based) of the first relevant hit among the top 50; 0 when none. */
  rank: number;
  question: string;
  document: string;
  answer: string;
  top: Array<{ document: string; heading: string; score: number; text: string }>;
}

async function main(): Promise<void> {
  const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const prefix = arg('--only-prefix');
  const out =
    arg('--json') ??
    (prefix ? `bench/results/lexical-tune-${prefix.replace(/[^A-Za-z0-9]+$/, '')}.json` : 'bench/results/lexical-tune.json');
  const questions = corpusQuestions().filter((q) => q.split === 'dev' && (!prefix || q.id.startsWith(prefix)));
  if (!questions.length) throw new Error(`no development question${prefix ? ` with the id prefix ${prefix}` : ''}`);
  const exactPostings = process.argv.includes('--exact-postings')
    ? Number(process.argv[process.argv.indexOf('--exact-postings') + 1])
    : undefined;
  // a fresh embedded PostgreSQL with the migrated template createTestApp clones
  await withTemplateDatabase(async () => {
    const t = await createTestApp({ workers: true });
    try {
      const owner = await factories(t.orm, t.services).makeUser({ platformRole: 'admin' });
      const actor = await t.services.tokens.authenticate(owner.token);
      const ingest = await ingestCorpus(
        { baseUrl: t.baseUrl, dbUrl: t.dbUrl, accessToken: owner.token },
        await corpusDocuments(),
        'lexical tune',
        (m) => process.stderr.write(`${m}\n`),
      );
      const texts = new Map<string, string[]>();
      for (const r of await t.orm.em
        .fork()
        .getConnection()
        .execute<Array<{ name: string; text: string }>>(
          'select d.name, c.text from chunks c join documents d on d.id = c.document_id where c.project_id = ?',
          [ingest.projectId],
        ))
        texts.set(r.name, [...(texts.get(r.name) ?? []), r.text]);
      const misses: Miss[] = [];
      const tally: Record<string, { n: number; r1: number; r5: number }> = {};
      const count = (key: string, rank: number) => {
        const e = (tally[key] ??= { n: 0, r1: 0, r5: 0 });
        e.n++;
        if (rank === 1) e.r1++;
        if (rank >= 1 && rank <= 5) e.r5++;
      };
      for (const q of questions) {
        const hits = await t.services.search.search(actor, ingest.projectId, q.question, { topK: 50, exactPostings });
        const at = hits.findIndex((h) => h.documentName === q.document && containsAnswer(h.text, q.answer));
        const rank = at + 1;
        for (const key of ['dev', `dev/${q.style}`, `dev/${q.lang}`]) count(key, rank);
        if (rank === 1) continue;
        const reachable = (texts.get(q.document) ?? []).some((x) => containsAnswer(x, q.answer));
        misses.push({
          id: q.id,
          style: q.style,
          lang: q.lang,
          kind: !reachable ? 'unreachable' : hits[0]?.documentName === q.document ? 'right-document' : 'wrong-document',
          rank,
          question: q.question,
          document: q.document,
          answer: q.answer,
          top: hits.slice(0, 3).map((h) => ({
            document: h.documentName,
            heading: h.context.split('\n')[0].slice(0, 80),
            score: h.score,
            text: h.text.slice(0, 300),
          })),
        });
      }
      const byKind: Record<string, { n: number; inTop5: number; inTop50: number }> = {};
      for (const m of misses) {
        const e = (byKind[m.kind] ??= { n: 0, inTop5: 0, inTop50: 0 });
        e.n++;
        if (m.rank >= 2 && m.rank <= 5) e.inTop5++;
        if (m.rank >= 2) e.inTop50++;
      }
      const r3 = (x: number) => Math.round(x * 1000) / 1000;
      const summary = Object.fromEntries(
        Object.entries(tally).map(([k, v]) => [k, { n: v.n, recallAt1: r3(v.r1 / v.n), recallAt5: r3(v.r5 / v.n) }]),
      );
      writeFileSync(
        path.resolve(ROOT, out),
        `${JSON.stringify({ measuredAt: new Date().toISOString(), summary, byKind, misses }, null, 1)}\n`,
      );
      process.stdout.write(`${JSON.stringify(summary, null, 1)}\n${JSON.stringify(byKind)}\n${out}\n`);
    } finally {
      await t.close();
    }
  });
}

main().catch((e) => {
  process.stderr.write(`lexical-tune failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
