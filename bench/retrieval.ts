import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { evalDocuments, evalQuestions, EvalScore, scoreEval } from '../test/support/retrieval-eval';
import { benchActor, DocsBenchEnv, openDocsBenchEnv, quantile, round, table, waitReady, writeResult } from './docs-env';
import type { SearchStages } from '../src/search/stages';
import { prng, prose } from './synthetic-text';
import { Actor } from '../src/access/actor';
import { rebuildPostings } from '../src/search/index-writer';

/**
 * Retrieval quality and latency.
 *
 * 1. Quality: the labelled evaluation set (test/fixtures/retrieval) is ingested through the real
 *    pipeline; recall@1, recall@5 and MRR over its questions — alone in a project, and again
 *    inside the 100,000-chunk project (the same documents among 100k distractor chunks).
 * 2. Latency: a project of CHUNKS synthetic chunks (Zipf-distributed vocabulary: stop words and
 *    common business words are very frequent, a long tail is rare), seeded with SQL and indexed
 *    exactly as ingestion indexes (same tsvector expression, term statistics recomputed from the
 *    chunks), then `retrieval.search()` — the call chat makes — for the evaluation questions and
 *    generated questions mixing common and rare words, one at a time after a warm-up.
 *
 *   node dist/bench/retrieval.js [--chunks 100000] [--queries 300]   (DATABASE_URL or a temp embedded PostgreSQL)
 */
export interface RetrievalBenchResult {
  chunks: number;
  seedSeconds: number;
  latencyMs: { queries: number; median: number; p95: number; p99: number; max: number; mean: number };
  /** Per stage (SearchStages): median, p95, p99 in ms. */
  stagesMs: StageBreakdown;
  target: string;
  met: boolean;
  quality: {
    alone: Omit<EvalScore, 'misses' | 'wrongPages'> & { wrongPages: number };
    among100k: Omit<EvalScore, 'misses' | 'wrongPages'> & { wrongPages: number; misses: EvalScore['misses'] };
  };
}

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

const CHUNK_CHARS = 950;
const CHUNKS_PER_DOCUMENT = 1000;

/** Median, p95 and p99 of each search stage over a run (ms). */
export type StageBreakdown = Partial<Record<keyof SearchStages, { median: number; p95: number; p99: number }>>;

export function stageBreakdown(runs: SearchStages[]): StageBreakdown {
  const out: StageBreakdown = {};
  const names = [...new Set(runs.flatMap((r) => Object.keys(r)))] as Array<keyof SearchStages>;
  for (const name of names) {
    // a stage a search skipped counts as 0 ms
    const v = runs.map((r) => r[name] ?? 0);
    out[name] = { median: round(quantile(v, 0.5)), p95: round(quantile(v, 0.95)), p99: round(quantile(v, 0.99)) };
  }
  return out;
}

/** Table rows for a stage breakdown. */
export function stageRows(b: StageBreakdown): string[][] {
  return Object.entries(b).map(([name, q]) => [`  stage ${name}`, `median ${q.median} ms, p95 ${q.p95} ms, p99 ${q.p99} ms`, '—', '—']);
}

/**
 * Seeds `count` synthetic chunks into a project in documents of 1,000 chunks, with SQL, indexed
 * like ingestion indexes them (to_tsvector over docqa_unaccent, term_count), then sets the
 * project's BM25 statistics and postings from the chunks. Four connections build vectors in parallel.
 */
export async function seedSyntheticChunks(orm: MikroORM, projectId: string, count: number, language = 'english', seed = 42): Promise<void> {
  const exec = (sql: string, params: unknown[] = []) => orm.em.fork().getConnection().execute(sql, params);
  const docs = Math.ceil(count / CHUNKS_PER_DOCUMENT);
  const docIds: string[] = [];
  for (let d = 0; d < docs; d++) {
    const content = Buffer.from(`synthetic document ${d} of project ${projectId}`);
    const [row] = (await exec(
      `insert into documents (project_id, name, mime_type, size, sha256, content, status, page_count, chunk_count, pages_done, pages_total)
       values (?, ?, 'text/plain', ?, ?, ?, 'ready', ?, ?, ?, ?) returning id`,
      [
        projectId,
        `synthetic-${d}.txt`,
        content.length,
        createHash('sha256').update(content).digest('hex'),
        content,
        CHUNKS_PER_DOCUMENT / 4,
        CHUNKS_PER_DOCUMENT,
        CHUNKS_PER_DOCUMENT / 4,
        CHUNKS_PER_DOCUMENT / 4,
      ],
    )) as Array<{ id: string }>;
    docIds.push(row.id);
  }
  const batches: Array<{ doc: string; from: number; n: number }> = [];
  for (let i = 0; i < count; i += 500)
    batches.push({ doc: docIds[Math.floor(i / CHUNKS_PER_DOCUMENT)], from: i, n: Math.min(500, count - i) });
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async (_, worker) => {
      const gen = prose(seed + worker);
      while (next < batches.length) {
        const b = batches[next++];
        let prev = '';
        const rows = Array.from({ length: b.n }, (_, k) => {
          const text = gen.paragraph(CHUNK_CHARS);
          const row = {
            o: (b.from + k) % CHUNKS_PER_DOCUMENT,
            p: Math.floor(((b.from + k) % CHUNKS_PER_DOCUMENT) / 4) + 1,
            t: text,
            c: `${prev}\n\n${text}`.trim().slice(-1600),
          };
          prev = text;
          return row;
        });
        await exec(
          `insert into chunks (document_id, project_id, ordinal, page_number, page_end, text, context, tsv, term_count)
           select ?, ?, x.o, x.p, x.p, x.t, x.c, v.tsv, coalesce((select sum(coalesce(array_length(u.positions, 1), 1)) from unnest(v.tsv) u), 0)
             from jsonb_to_recordset(?::jsonb) as x(o int, p int, t text, c text)
             cross join lateral (select to_tsvector(?::regconfig, docqa_unaccent(x.t)) as tsv) v`,
          [b.doc, projectId, JSON.stringify(rows), language],
        );
      }
    }),
  );
  // statistics from the chunks themselves, added to whatever the project already had
  await exec(
    `insert into term_stats (project_id, term, df)
     select ?, u.lexeme, count(*) from chunks c, unnest(c.tsv) u where c.document_id in (select id from documents where project_id = ? and name like 'synthetic-%') group by u.lexeme
     on conflict (project_id, term) do update set df = term_stats.df + excluded.df`,
    [projectId, projectId],
  );
  await exec(
    `insert into project_index_stats (project_id, chunk_count, total_terms)
     select ?, count(*), coalesce(sum(term_count), 0) from chunks where document_id in (select id from documents where project_id = ? and name like 'synthetic-%')
     on conflict (project_id) do update set chunk_count = project_index_stats.chunk_count + excluded.chunk_count, total_terms = project_index_stats.total_terms + excluded.total_terms`,
    [projectId, projectId],
  );
  // ten documents a statement: one statement for all of them can outlast the statement time-out on a loaded machine
  for (let i = 0; i < docIds.length; i += 10) await rebuildPostings(orm.em.fork(), projectId, docIds.slice(i, i + 10));
  await exec('analyze chunks');
  await exec('analyze term_stats');
  await exec('vacuum analyze term_postings');
}

/** Ingests the evaluation documents into a project through the real pipeline (upload → job → ready). */
async function ingestEvalSet(env: DocsBenchEnv, projectId: string): Promise<void> {
  const files = (await evalDocuments()).map((f) => ({
    name: f.name,
    mimeType: f.type,
    content: typeof f.content === 'string' ? Buffer.from(f.content) : f.content,
  }));
  const uploaded = await env.services.documents.upload(benchActor(), projectId, files);
  for (const u of uploaded) {
    const row = await waitReady(env.orm, u.document.id);
    if (row.status !== 'ready') throw new Error(`${u.document.name} failed: ${row.error}`);
  }
}

async function evaluate(env: DocsBenchEnv, projectId: string): Promise<EvalScore> {
  const runs = [];
  for (const q of evalQuestions())
    runs.push({ q, hits: await env.services.search.search(Actor.system(), projectId, q.question, { topK: 5 }) });
  return scoreEval(runs);
}

/** Questions built from words of random synthetic chunks, mixed with common words and stop words. */
async function syntheticQuestions(orm: MikroORM, projectId: string, n: number): Promise<string[]> {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<Array<{ text: string }>>(
      `select text from chunks where project_id = ? and document_id in (select id from documents where project_id = ? and name like 'synthetic-%') order by md5(id::text) limit ?`,
      [projectId, projectId, n],
    );
  const rand = prng(7);
  const common = ['what', 'is', 'the', 'policy', 'for', 'how', 'do', 'employees', 'report', 'time', 'when', 'does', 'access'];
  return rows.map((r) => {
    const words = r.text.replace(/[.,]/g, '').split(/\s+/);
    const pick = () => words[Math.floor(rand() * words.length)];
    const parts = [
      common[Math.floor(rand() * 6)],
      common[2],
      pick(),
      pick(),
      ...(rand() < 0.5 ? [pick()] : []),
      common[6 + Math.floor(rand() * 7)],
      pick(),
    ];
    return `${parts.join(' ')}?`;
  });
}

export async function benchRetrieval(opts: { chunks?: number; queries?: number } = {}): Promise<RetrievalBenchResult> {
  const chunks = opts.chunks ?? 100_000;
  const queries = opts.queries ?? 300;
  const env = await openDocsBenchEnv({ workers: true });
  try {
    const small = await env.newProject('bench: evaluation set');
    await ingestEvalSet(env, small.id);
    const alone = await evaluate(env, small.id);

    const big = await env.newProject(`bench: ${chunks} chunks`);
    const s0 = performance.now();
    await seedSyntheticChunks(env.orm, big.id, chunks, env.config.searchLanguage);
    const seedSeconds = round((performance.now() - s0) / 1000);
    await ingestEvalSet(env, big.id);

    const questions = [...evalQuestions().map((q) => q.question), ...(await syntheticQuestions(env.orm, big.id, queries))];
    for (const q of questions.slice(0, 30)) await env.services.search.search(Actor.system(), big.id, q, { relevanceFloor: 0 }); // warm-up (floor 0: synthetic questions are timed ranked in full)
    const times: number[] = [];
    const stageRuns: SearchStages[] = [];
    for (const q of questions) {
      const stages: SearchStages = {};
      const t0 = performance.now();
      await env.services.search.search(Actor.system(), big.id, q, { stages, relevanceFloor: 0 });
      times.push(performance.now() - t0);
      stageRuns.push(stages);
    }
    const among = await evaluate(env, big.id);
    const p95 = round(quantile(times, 0.95));
    const strip = (s: EvalScore) => ({
      questions: s.questions,
      recallAt1: round(s.recallAt1, 3),
      recallAt5: round(s.recallAt5, 3),
      mrr: round(s.mrr, 3),
      wrongPages: s.wrongPages.length,
    });
    return {
      chunks,
      seedSeconds,
      latencyMs: {
        queries: times.length,
        median: round(quantile(times, 0.5)),
        p95,
        p99: round(quantile(times, 0.99)),
        max: round(Math.max(...times)),
        mean: round(times.reduce((a, b) => a + b, 0) / times.length),
      },
      stagesMs: stageBreakdown(stageRuns),
      target: 'p95 ≤ 45 ms at 100,000 chunks',
      met: p95 <= 45,
      quality: { alone: strip(alone), among100k: { ...strip(among), misses: among.misses } },
    };
  } finally {
    await env.close();
  }
}

async function main(): Promise<void> {
  const r = await benchRetrieval({ chunks: arg('chunks', 100_000), queries: arg('queries', 300) });
  const file = writeResult('retrieval', { ...r, measuredAt: new Date().toISOString() });
  const q = (s: RetrievalBenchResult['quality']['alone']) =>
    `recall@1 ${s.recallAt1}, recall@5 ${s.recallAt5}, MRR ${s.mrr} (${s.questions} questions)`;
  process.stdout.write(
    `\n${table(
      ['metric', 'measured', 'target', 'met'],
      [
        [
          `retrieval latency, ${r.chunks.toLocaleString('en')} chunks in one project`,
          `median ${r.latencyMs.median} ms, p95 ${r.latencyMs.p95} ms, p99 ${r.latencyMs.p99} ms (${r.latencyMs.queries} queries)`,
          r.target,
          r.met ? 'yes' : 'NO',
        ],
        ['retrieval quality, evaluation set alone', q(r.quality.alone), 'recall@5 ≥ 0.9', r.quality.alone.recallAt5 >= 0.9 ? 'yes' : 'NO'],
        [`retrieval quality, evaluation set among ${r.chunks.toLocaleString('en')} chunks`, q(r.quality.among100k), '—', '—'],
        ...stageRows(r.stagesMs),
        ['seeding (SQL, 4 connections)', `${r.seedSeconds} s`, '—', '—'],
      ],
    )}\n\n${file}\n`,
  );
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
