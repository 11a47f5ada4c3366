import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startOpenAiStub, stubEmbedding } from '../test/support/openai-stub';
import { chatAsker } from '../test/support/eval/run-eval';
import { ANALYSIS_VERSION } from '../src/ingest/pipeline/index-document';
import { POSTINGS_COLUMNS, postingsOf } from '../src/search/index-writer';
import { normalize, toBytes } from '../src/search/vector-store';
import { quantile, round, table, writeResult } from './docs-env';
import { indexStatsFromChunks } from './chat-overhead';
import { json, startBenchEnv } from './lib/env';
import { prose } from './synthetic-text';

/**
 * Hybrid retrieval at a million chunks, end to end through the real server in its own process
 * (`dist/src/main.js`, fresh embedded PostgreSQL): time to the chat stream's `sources` event, and
 * the SERVER's resident memory (/proc/<pid>/status VmRSS), the bench's own reported apart.
 *
 * 1. Seeding, straight into the real tables with multi-row statements (not the upload pipeline),
 *    WORKERS connections, one document of 1,000 chunks per transaction: synthetic chunks
 *    (bench/synthetic-text.ts prose, ~950 characters) with full-text vectors computed by
 *    PostgreSQL as ingestion computes them, each chunk's DIMS-d vector (the OpenAI-compatible
 *    stub's hashed bag of words, normalised, as VectorStore.write stores it) in `chunk_embeddings`,
 *    and the document's postings; then the BM25 statistics. Every 50,000 chunks a question is
 *    asked, so the server reads the new vectors into its index (it finds any writer's rows by
 *    max(seq)) and builds the graph while the seeding goes on, as it would for embedding jobs.
 *    The documents carry the current ANALYSIS_VERSION (a restart's re-analysis sweep would
 *    otherwise re-ingest them from their one-line stored content and drop the chunks).
 * 2. With `--restart 1`, the server is then restarted and rebuilds the index from PostgreSQL as at
 *    any start: readiness and the first question are timed. Either way the bench then waits until
 *    the server's process is idle (no question is asked: the index thread builds the HNSW graph at
 *    full speed until it is done, then the process uses no CPU), sampling its RSS every second.
 * 3. QUERIES questions (four words of a random chunk) through POST /api/chat/projects/:id, one at
 *    a time after 10 warm-ups: the client's time to `sources`, and the server's RSS after them.
 *
 *   node dist/bench/vectors-1m.js [--chunks 1000000] [--dims 512] [--queries 200] [--quant i8] [--cache-mb 1024] [--workers 3] [--restart 0] [--hold 1]
 *   node dist/bench/vectors-1m.js --database <url a --hold run printed> --project <its id> [--queries 200] …   (no seeding: a new server on it)
 */
const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};

const CHUNK_CHARS = 950;
const PER_DOCUMENT = 1000;
const MODEL = 'stub-embed';
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** CPU seconds a process has used (user + system, /proc/<pid>/stat; clock ticks of 1/100 s). */
/** The machine's page cache (MB). */
function pageCacheMb(): number {
  return Math.round(Number(/^Cached:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) / 1024);
}

/** PostgreSQL's block reads of the database so far (its statistics lag up to a second: wait first). */
async function blocks(dbUrl: string): Promise<{ hit: number; read: number }> {
  await new Promise((r) => setTimeout(r, 1500));
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ hit: string; read: string }>(
      'select blks_hit as hit, blks_read as read from pg_stat_database where datname = current_database()',
    );
    return { hit: Number(rows[0].hit), read: Number(rows[0].read) };
  } finally {
    await c.end();
  }
}

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface Vectors1mResult {
  chunks: number;
  dims: number;
  quantization: string;
  cacheMb: number;
  /** Null on a database seeded before (`--database`). */
  seedSeconds: { chunksVectorsPostings: number; statistics: number; analyze: number; total: number } | null;
  /** With --restart 1: restart → ready, and the first question's time to sources (it waits for the index to be read). */
  restart: { readySeconds: number; firstQuestionMs: number } | null;
  /** From the first index load (or the restart) until the server was idle, i.e. its graph built; and from the end of the seeding. */
  graph: { seconds: number; afterSeedingSeconds: number };
  /** The server's RSS, sampled every second from the start of the seeding. */
  peakRssMb: number;
  sourcesMs: { queries: number; withSources: number; median: number; p95: number; p99: number; max: number };
  /** The server's own retrieval time (done.timings.retrievalMs). */
  retrievalMs: { median: number; p95: number };
  serverRssMb: number;
  benchRssMb: number;
  /**
   * What the questions read: the machine's page cache before them (/proc/meminfo Cached), and
   * PostgreSQL's blocks a question, from its buffers (hit) or not (read: the page cache or the disk).
   * At a million chunks the time follows the reads that miss the page cache.
   */
  reads: { pageCacheMb: number; blocksHitPerQuestion: number; blocksReadPerQuestion: number };
  loadAverage: { seeding: number[]; measuring: number[] };
  target: string;
  met: boolean;
}

/** Seeds the project; returns a sample of chunk texts (for questions) and the seconds each phase took. */
export async function seed(
  dbUrl: string,
  projectId: string,
  opts: { chunks: number; dims: number; workers: number; questions: number; log: (m: string) => void; progress?: (text: string) => void },
): Promise<{ samples: string[]; seconds: Vectors1mResult['seedSeconds'] }> {
  const t0 = performance.now();
  const docs = Math.ceil(opts.chunks / PER_DOCUMENT);
  const samples: string[] = [];
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: opts.workers }, async (_, worker) => {
      const db = new pg.Client({ connectionString: dbUrl });
      await db.connect();
      try {
        const gen = prose(42 + worker);
        while (next < docs) {
          const d = next++;
          const n = Math.min(PER_DOCUMENT, opts.chunks - d * PER_DOCUMENT);
          const content = Buffer.from(`synthetic document ${d} of project ${projectId}`);
          await db.query('begin');
          const [doc] = (
            await db.query(
              `insert into documents (project_id, name, mime_type, size, sha256, content, status, page_count, chunk_count, pages_done, pages_total, analysis_version)
               values ($1, $2, 'text/plain', $3, $4, $5, 'ready', $6, $7, $6, $6, $8) returning id`,
              [
                projectId,
                `synthetic-${d}.txt`,
                content.length,
                createHash('sha256').update(content).digest('hex'),
                content,
                n / 4,
                n,
                ANALYSIS_VERSION,
              ],
            )
          ).rows as Array<{ id: string }>;
          let prev = '';
          const rows = Array.from({ length: n }, (_, k) => {
            const text = gen.paragraph(CHUNK_CHARS);
            const row = { o: k, p: Math.floor(k / 4) + 1, t: text, c: `${prev}\n\n${text}`.trim().slice(-1600) };
            prev = text;
            return row;
          });
          const ids = (
            await db.query(
              `insert into chunks (document_id, project_id, ordinal, page_number, page_end, text, context, tsv, term_count)
               select $1, $2, x.o, x.p, x.p, x.t, x.c, v.tsv, coalesce((select sum(coalesce(array_length(u.positions, 1), 1)) from unnest(v.tsv) u), 0)
                 from jsonb_to_recordset($3::jsonb) as x(o int, p int, t text, c text)
                 cross join lateral (select to_tsvector('english'::regconfig, docqa_unaccent(x.t)) as tsv) v
               returning id, ordinal`,
              [doc.id, projectId, JSON.stringify(rows)],
            )
          ).rows as Array<{ id: string; ordinal: number }>;
          // the vectors as VectorStore.write stores them: normalised float32, little-endian bytes
          const vecs = ids.map((r) => toBytes(normalize(Float32Array.from(stubEmbedding(rows[r.ordinal].t, opts.dims, [], MODEL)))));
          await db.query(
            `insert into chunk_embeddings (chunk_id, model, project_id, dims, vec)
             select u.id, $2, $3, $4, u.vec from unnest($1::uuid[], $5::bytea[]) as u(id, vec)`,
            [ids.map((r) => r.id), MODEL, projectId, opts.dims, vecs],
          );
          // the document's postings, as ingestion writes them (each connection its own documents)
          await db.query(
            `insert into term_postings (${POSTINGS_COLUMNS})
             ${postingsOf('(select id, document_id, project_id, ordinal, tsv, term_count from chunks where document_id = $1)')}`,
            [doc.id],
          );
          await db.query('commit');
          // texts to draw questions from: about twice as many as asked, spread over the documents
          samples.push(...rows.slice(0, Math.ceil((2 * opts.questions) / docs)).map((r) => r.t));
          if (++done % 50 === 0) {
            opts.log(`${done * PER_DOCUMENT} chunks seeded (${Math.round((performance.now() - t0) / 1000)} s)`);
            opts.progress?.(rows[0].t);
          }
        }
      } finally {
        await db.end();
      }
    }),
  );
  const t1 = performance.now();
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    await indexStatsFromChunks(db, projectId);
    const t2 = performance.now();
    await db.query('analyze chunks; analyze term_stats; analyze chunk_embeddings');
    // as autovacuum leaves it: the pages marked all-visible, so that postings are read from the index alone
    await db.query('vacuum analyze term_postings');
    const t3 = performance.now();
    opts.log(`statistics in ${Math.round((t2 - t1) / 1000)} s, analyze in ${Math.round((t3 - t2) / 1000)} s`);
    const s = (a: number, b: number) => round((b - a) / 1000);
    return { samples, seconds: { chunksVectorsPostings: s(t0, t1), statistics: s(t1, t2), analyze: s(t2, t3), total: s(t0, t3) } };
  } finally {
    await db.end();
  }
}

/** Chunk texts of a project seeded before, to draw questions from (a fixed sample). */
async function sampleTexts(dbUrl: string, projectId: string, n: number): Promise<string[]> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ text: string }>('select text from chunks where project_id = $1 order by md5(id::text) limit $2', [
      projectId,
      n,
    ]);
    return rows.map((r) => r.text);
  } finally {
    await db.end();
  }
}

export async function benchVectors1m(opts: {
  chunks: number;
  dims: number;
  queries: number;
  quantization: string;
  cacheMb: number;
  workers: number;
  restart?: boolean;
  /** Keep the database up after measuring, until SIGINT (`--hold 1`). */
  hold?: boolean;
  /** A database a run with `--hold 1` left up, and its project: no seeding, a new server on it (`--database URL --project ID`). */
  database?: string;
  project?: string;
}): Promise<Vectors1mResult> {
  const log = (m: string) => process.stderr.write(`vectors-1m: ${m}\n`);
  const stub = await startOpenAiStub({ deltas: ['See the sources [1].'] });
  stub.setEmbeddings({ dims: opts.dims });
  const env = await startBenchEnv(
    {
      EMBEDDING_MODEL: MODEL,
      EMBEDDING_BASE_URL: stub.url,
      EMBEDDING_API_KEY: 'sk-local',
      // a question's vector may queue behind other work on 2 shared cores: a time-out would measure lexical instead
      EMBEDDING_QUERY_TIMEOUT_MS: '10000',
      EMBEDDING_SWEEP_SECONDS: '3600',
      EMBEDDING_CACHE_MB: String(opts.cacheMb),
      VECTOR_QUANTIZATION: opts.quantization,
    },
    [],
    opts.database,
  );
  try {
    const { accessToken } = await json(env, 'POST', '/api/auth/login', null, env.superadmin);
    const provider = { name: 'Stub', slug: 'stub', type: 'custom', baseUrl: stub.url, apiKey: 'sk-bench', models: ['bench-model'] };
    const known = opts.database
      ? ((await json(env, 'GET', '/api/providers', accessToken)).providers as Array<{ id: string; slug: string }>).find(
          (p) => p.slug === 'stub',
        )
      : undefined;
    // on a database seeded before, its provider now points at this run's stub
    if (known) await json(env, 'PATCH', `/api/providers/${known.id}`, accessToken, { baseUrl: stub.url });
    else await json(env, 'POST', '/api/providers', accessToken, provider);
    const project = opts.project
      ? { id: opts.project }
      : (await json(env, 'POST', '/api/projects', accessToken, { name: `bench: ${opts.chunks} chunks with vectors` })).project;
    // access tokens expire (auth/tokens.ts) and the seeding outlasts one: a fresh login every 5 minutes
    let asker = { at: Date.now(), ask: chatAsker({ baseUrl: env.baseUrl, dbUrl: env.dbUrl, accessToken }, project.id) };
    const ask = async (q: string) => {
      if (Date.now() - asker.at > 300_000) {
        const fresh = (await json(env, 'POST', '/api/auth/login', null, env.superadmin)) as { accessToken: string };
        asker = { at: Date.now(), ask: chatAsker({ baseUrl: env.baseUrl, dbUrl: env.dbUrl, accessToken: fresh.accessToken }, project.id) };
      }
      return asker.ask(q);
    };
    const question = (text: string) => {
      const w = text.replace(/[.,]/g, '').split(/\s+/);
      return `what is the ${w[3]} ${w[7]} for ${w[11]} ${w[13]}?`;
    };
    let peakRss = env.server.rssMb();
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, env.server.rssMb())), 1000);
    try {
      const load0 = loadavg()[0];
      log(
        opts.database
          ? `a new server on ${opts.database.replace(/:[^:@/]*@/, ':…@')}: it loads the index`
          : `seeding ${opts.chunks} chunks with ${opts.dims}-d vectors (${opts.workers} connections)`,
      );
      // a question every 50,000 chunks: the server reads the new vectors into its index (any
      // writer's rows are found by max(seq)) and builds the graph while the seeding goes on
      let g0: number | null = null;
      const inFlight: { asking: Promise<unknown> | null } = { asking: null };
      const progress = (text: string) => {
        g0 ??= performance.now();
        inFlight.asking ??= ask(question(text))
          .catch((e) => log(`a question during the seeding failed: ${String(e)}`))
          .finally(() => (inFlight.asking = null));
      };
      const seeded = opts.database
        ? { samples: await sampleTexts(env.dbUrl, project.id, 2 * (opts.queries + 11)), seconds: null }
        : await seed(env.dbUrl, project.id, { ...opts, questions: opts.queries + 11, log, progress });
      await inFlight.asking;
      const load1 = loadavg()[0];
      const questions = seeded.samples
        .sort((a, b) => (createHash('md5').update(a).digest('hex') < createHash('md5').update(b).digest('hex') ? -1 : 1))
        .slice(0, opts.queries + 11)
        .map(question);
      let restart: Vectors1mResult['restart'] = null;
      if (opts.restart) {
        // a restart: the server rebuilds the index from PostgreSQL, as at any start
        log('restarting the server');
        const r0 = performance.now();
        await env.restart();
        const readySeconds = round((performance.now() - r0) / 1000);
        g0 = r0;
        const first = await ask(questions[0]);
        restart = { readySeconds, firstQuestionMs: round(first.sourcesMs) };
        log(`restart: ready after ${readySeconds} s, first question ${restart.firstQuestionMs} ms`);
      } else await ask(questions[0]);
      const s0 = performance.now();
      g0 ??= s0;
      log(`seeded in ${seeded.seconds?.total ?? '(before)'} s; waiting for the graph (server idle)`);
      const pid = env.server.proc.pid!;
      // the index thread builds the graph between requests at full speed: the process is idle once it is done
      let quiet = 0;
      let cpu = cpuSeconds(pid);
      while (quiet < 3) {
        await new Promise((r) => setTimeout(r, 5000));
        const now = cpuSeconds(pid);
        quiet = now - cpu < 0.1 ? quiet + 1 : 0;
        cpu = now;
        if (Math.round((performance.now() - s0) / 1000) % 60 < 5)
          log(`graph: ${Math.round((performance.now() - s0) / 1000)} s after the seeding, RSS ${env.server.rssMb()} MB`);
      }
      // the last 15 s were the idle check
      const graph = {
        seconds: round((performance.now() - g0) / 1000 - 15),
        afterSeedingSeconds: round((performance.now() - s0) / 1000 - 15),
      };
      for (const q of questions.slice(1, 11)) await ask(q);
      const cachedMb = pageCacheMb();
      const before = await blocks(env.dbUrl);
      const times: number[] = [];
      const retrieval: number[] = [];
      let withSources = 0;
      for (const q of questions.slice(11)) {
        const a = await ask(q);
        times.push(a.sourcesMs);
        if (a.retrievalMs !== null) retrieval.push(a.retrievalMs);
        if (a.ids.length) withSources++;
      }
      const serverRssMb = env.server.rssMb();
      const after = await blocks(env.dbUrl);
      const p95 = round(quantile(times, 0.95));
      const result: Vectors1mResult = {
        chunks: opts.chunks,
        dims: opts.dims,
        quantization: opts.quantization,
        cacheMb: opts.cacheMb,
        seedSeconds: seeded.seconds,
        restart,
        graph,
        peakRssMb: Math.max(peakRss, serverRssMb),
        sourcesMs: {
          queries: times.length,
          withSources,
          median: round(quantile(times, 0.5)),
          p95,
          p99: round(quantile(times, 0.99)),
          max: round(Math.max(...times)),
        },
        retrievalMs: { median: round(quantile(retrieval, 0.5)), p95: round(quantile(retrieval, 0.95)) },
        serverRssMb,
        benchRssMb: mb(process.memoryUsage().rss),
        reads: {
          pageCacheMb: cachedMb,
          blocksHitPerQuestion: round((after.hit - before.hit) / Math.max(times.length, 1)),
          blocksReadPerQuestion: round((after.read - before.read) / Math.max(times.length, 1)),
        },
        loadAverage: { seeding: [load0, load1].map((x) => round(x, 2)), measuring: [round(loadavg()[0], 2)] },
        target: 'p95 ≤ 60 ms in ≤ 1.5 GB (server RSS) at 1,000,000 chunks with 512-d vectors (issue 36)',
        met: p95 <= 60 && serverRssMb <= 1536,
      };
      if (opts.hold) {
        // the result is kept first; the database stays up for other tools (e.g. lexical-explain.js)
        // until this process is interrupted
        save(result);
        process.stdout.write(`holding: DATABASE_URL=${env.dbUrl} project ${project.id} (Ctrl-C ends)\n`);
        await new Promise<void>((resolve) => process.once('SIGINT', resolve));
      }
      return result;
    } finally {
      clearInterval(sampler);
    }
  } finally {
    await env.close();
    await stub.close();
  }
}

const save = (r: Vectors1mResult): string => writeResult('vectors-1m', { ...r, measuredAt: new Date().toISOString() });

async function main(): Promise<void> {
  const r = await benchVectors1m({
    chunks: Number(arg('chunks', '1000000')),
    dims: Number(arg('dims', '512')),
    queries: Number(arg('queries', '200')),
    quantization: arg('quant', 'i8'),
    cacheMb: Number(arg('cache-mb', '1024')),
    workers: Number(arg('workers', '3')),
    restart: arg('restart', '0') === '1',
    hold: arg('hold', '0') === '1',
    database: arg('database', '') || undefined,
    project: arg('project', '') || undefined,
  });
  const file = save(r);
  const s = r.sourcesMs;
  process.stdout.write(
    `\n${table(
      ['metric', 'measured', 'target', 'met'],
      [
        [
          `time to sources, ${r.chunks.toLocaleString('en')} chunks with ${r.dims}-d vectors (${r.quantization}), through the server`,
          `median ${s.median} ms, p95 ${s.p95}, p99 ${s.p99} (${s.queries} questions, ${s.withSources} with sources)`,
          'p95 ≤ 60 ms',
          s.p95 <= 60 ? 'yes' : 'NO',
        ],
        [
          'server RSS after the questions',
          `${r.serverRssMb} MB (peak ${r.peakRssMb} MB; bench ${r.benchRssMb} MB)`,
          '≤ 1.5 GB',
          r.serverRssMb <= 1536 ? 'yes' : 'NO',
        ],
        [
          'graph built (from the first index load; after the seeding ended)',
          `${r.graph.seconds} s; ${r.graph.afterSeedingSeconds} s${r.restart ? ` (restart: ready in ${r.restart.readySeconds} s, first question ${r.restart.firstQuestionMs} ms)` : ''}`,
          '—',
          '—',
        ],
        ['server retrieval (done.timings.retrievalMs)', `median ${r.retrievalMs.median} ms, p95 ${r.retrievalMs.p95}`, '—', '—'],
        [
          'PostgreSQL blocks a question (from its buffers / not; page cache before)',
          `${r.reads.blocksHitPerQuestion} / ${r.reads.blocksReadPerQuestion} (${r.reads.pageCacheMb} MB)`,
          '—',
          '—',
        ],
        [
          'seeding (chunks, vectors and postings / statistics / analyze)',
          r.seedSeconds
            ? `${r.seedSeconds.chunksVectorsPostings} s / ${r.seedSeconds.statistics} s / ${r.seedSeconds.analyze} s`
            : 'seeded before (--database)',
          '—',
          '—',
        ],
      ],
    )}\n\nload average ${r.loadAverage.seeding.join(' → ')} (seeding), ${r.loadAverage.measuring.join(', ')} (after)\n${file}\n`,
  );
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
