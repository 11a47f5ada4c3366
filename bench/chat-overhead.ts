import 'reflect-metadata';
import { createParser } from 'eventsource-parser';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startOpenAiStub } from '../test/support/openai-stub';
import { BenchEnv, json, ROOT, startBenchEnv } from './lib/env';
export { json };
import { POSTINGS_COLUMNS, postingsOf } from '../src/search/index-writer';

/**
 * The overhead our service adds before the first `text` event of a chat answer.
 *
 * A real server (`dist/src/main.js`, its own process, fresh embedded PostgreSQL in a temp dir)
 * answers from a project of CHUNKS chunks seeded by SQL (indexed like ingestion indexes them);
 * the upstream is the local OpenAI-compatible stub with a fixed time to first token (TTFT_MS).
 * For each of REQUESTS sequential questions (after a warm-up):
 *   overhead = (client: request sent → first `text` event) − (stub: request received → first delta written)
 * i.e. everything we add: HTTP, auth, access, provider resolution, storing the question,
 * retrieval over the project's chunks, the prompt, the upstream connection, and relaying the delta.
 *
 *   node dist/bench/chat-overhead.js [--chunks 10000] [--requests 30] [--ttft 200]
 */
const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

export interface ChatOverheadResult {
  chunks: number;
  requests: number;
  ttftMs: number;
  overheadMs: { median: number; p90: number; min: number; max: number };
  clientFirstTextMs: { median: number };
  stubTtftMs: { median: number };
  /** Medians of the server's own `done.timings`. */
  serverTimings: { retrievalMs: number; firstTokenMs: number; totalMs: number };
  samples: Array<{
    overheadMs: number;
    firstTextMs: number;
    stubTtftMs: number;
    retrievalMs: number;
    serverFirstTokenMs: number;
    serverTotalMs: number;
    sources: number;
  }>;
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] : NaN;
};
const r1 = (x: number) => Math.round(x * 10) / 10;

/** A deterministic pseudo-random generator (mulberry32), so every run seeds the same corpus. */
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

/** A vocabulary of made-up but pronounceable words; drawn with a Zipf-like skew like real text. */
export function vocabulary(n: number, rand: () => number): string[] {
  const on = ['b', 'c', 'd', 'f', 'g', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'tr', 'st', 'pl', 'gr', 'br'];
  const nu = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou', 'ea'];
  const words = new Set<string>();
  while (words.size < n) {
    const syl = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let i = 0; i < syl; i++) w += on[Math.floor(rand() * on.length)] + nu[Math.floor(rand() * nu.length)];
    words.add(w + (rand() < 0.5 ? 'n' : 'r'));
  }
  return [...words];
}

/** A project's BM25 statistics (term document frequencies, chunk count, total terms) from its chunks: for chunks written by SQL. */
export async function indexStatsFromChunks(c: pg.Client, projectId: string): Promise<void> {
  await c.query(
    `insert into term_stats (project_id, term, df) select $1, u.lexeme, count(*) from chunks c, unnest(c.tsv) u where c.project_id = $1 group by u.lexeme`,
    [projectId],
  );
  await c.query(
    `insert into project_index_stats (project_id, chunk_count, total_terms) select $1, count(*), coalesce(sum(term_count), 0) from chunks where project_id = $1`,
    [projectId],
  );
}

/** Seeds one project with `chunks` chunks over documents of 100 pages, in batches, with index statistics. */
export async function seedChunks(dbUrl: string, projectId: string, chunks: number, vocab: string[], rand: () => number): Promise<void> {
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const perDoc = 100;
    const pick = () => vocab[Math.floor(Math.pow(rand(), 2.2) * vocab.length)];
    for (let d = 0; d * perDoc < chunks; d++) {
      const n = Math.min(perDoc, chunks - d * perDoc);
      const doc = (
        await c.query(
          `insert into documents (project_id, name, mime_type, size, sha256, status, pages_done, pages_total, page_count, chunk_count, content)
         values ($1, $2, 'application/pdf', 1, md5($2), 'ready', $3, $3, $3, $3, '') returning id`,
          [projectId, `bench-doc-${d + 1}.pdf`, n],
        )
      ).rows[0].id as string;
      const batch = Array.from({ length: n }, (_, i) => {
        const text = Array.from({ length: 60 + Math.floor(rand() * 60) }, pick).join(' ') + '.';
        return { o: i, p: i + 1, t: text };
      });
      await c.query(
        `insert into chunks (document_id, project_id, ordinal, page_number, page_end, text, context, tsv, term_count)
         select $1, $2, x.o, x.p, x.p, x.t, x.t, v.tsv, coalesce((select sum(coalesce(array_length(u.positions, 1), 1)) from unnest(v.tsv) u), 0)
           from jsonb_to_recordset($3::jsonb) as x(o int, p int, t text)
           cross join lateral (select to_tsvector('english', docqa_unaccent(x.t)) as tsv) v`,
        [doc, projectId, JSON.stringify(batch)],
      );
    }
    await indexStatsFromChunks(c, projectId);
    await c.query(
      `insert into term_postings (${POSTINGS_COLUMNS})
       ${postingsOf('(select id, document_id, project_id, ordinal, tsv, term_count from chunks where project_id = $1)')}`,
      [projectId],
    );
    await c.query('analyze chunks; analyze term_stats; analyze term_postings');
  } finally {
    await c.end();
  }
}

/** One chat request; times the first `text` event and reads the `done` timings. */
export async function askOnce(env: BenchEnv, token: string, projectId: string, message: string) {
  const started = performance.now();
  const res = await fetch(`${env.baseUrl}/api/chat/projects/${projectId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ message }),
  });
  if (res.status !== 200) throw new Error(`chat → ${res.status} ${await res.text()}`);
  let firstText: number | null = null;
  let done: any = null;
  let failure: any = null;
  let sources = 0;
  const parser = createParser({
    onEvent: (e) => {
      if (e.event === 'text' && firstText === null) firstText = performance.now() - started;
      if (e.event === 'sources') sources = JSON.parse(e.data).chunks.length;
      if (e.event === 'done') done = JSON.parse(e.data);
      if (e.event === 'error') failure = JSON.parse(e.data);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  if (failure || !done || firstText === null) throw new Error(`chat failed: ${JSON.stringify(failure ?? done)}`);
  return {
    firstTextMs: firstText as number,
    timings: done.timings as { retrievalMs: number; firstTokenMs: number; totalMs: number },
    sources,
  };
}

/**
 * The chat benchmarks' set-up: a provider for the OpenAI-compatible stub at `stubUrl`, a project with
 * `chunks` generated chunks, and a generator of 6–10-word questions drawn like the text (so candidate
 * sets are realistically large).
 */
export async function seedChatBench(
  env: BenchEnv,
  accessToken: string,
  stubUrl: string,
  projectName: string,
  chunks: number,
  log: (m: string) => void,
): Promise<{ projectId: string; question: () => string }> {
  await json(env, 'POST', '/api/providers', accessToken, {
    name: 'Stub',
    slug: 'stub',
    type: 'custom',
    baseUrl: stubUrl,
    apiKey: 'sk-bench',
    models: ['bench-model'],
  });
  const { project } = await json(env, 'POST', '/api/projects', accessToken, { name: projectName });
  const rand = prng(42);
  const vocab = vocabulary(6000, rand);
  log(`seeding ${chunks} chunks`);
  await seedChunks(env.dbUrl, project.id, chunks, vocab, rand);
  const question = () =>
    Array.from({ length: 6 + Math.floor(rand() * 5) }, () => vocab[Math.floor(Math.pow(rand(), 1.6) * vocab.length)]).join(' ') + '?';
  return { projectId: project.id, question };
}

export async function benchChatOverhead(
  env: BenchEnv,
  opts: { chunks: number; requests: number; ttftMs: number },
): Promise<ChatOverheadResult> {
  const stub = await startOpenAiStub({ ttftMs: opts.ttftMs, deltas: ['The answer ', 'is in ', 'the context [1].'] });
  try {
    const { accessToken } = await json(env, 'POST', '/api/auth/login', null, env.superadmin);
    const progress = (m: string) => process.stderr.write(`chat-overhead: ${m}\n`);
    const { projectId, question } = await seedChatBench(env, accessToken, stub.url, 'Chat overhead bench', opts.chunks, progress);
    progress('warming up');

    for (let i = 0; i < 5; i++) await askOnce(env, accessToken, projectId, question());

    progress(`measuring ${opts.requests} requests`);
    const samples: ChatOverheadResult['samples'] = [];
    for (let i = 0; i < opts.requests; i++) {
      const before = stub.requests.length;
      const r = await askOnce(env, accessToken, projectId, question());
      const up = stub.requests[before];
      const stubTtft = up.firstDeltaAt! - up.receivedAt;
      samples.push({
        overheadMs: r1(r.firstTextMs - stubTtft),
        firstTextMs: r1(r.firstTextMs),
        stubTtftMs: r1(stubTtft),
        retrievalMs: r.timings.retrievalMs,
        serverFirstTokenMs: r.timings.firstTokenMs,
        serverTotalMs: r.timings.totalMs,
        sources: r.sources,
      });
    }
    const o = samples.map((s) => s.overheadMs);
    const med = (k: keyof ChatOverheadResult['samples'][number]) =>
      r1(
        quantile(
          samples.map((s) => s[k]),
          0.5,
        ),
      );
    return {
      chunks: opts.chunks,
      requests: opts.requests,
      ttftMs: opts.ttftMs,
      overheadMs: { median: r1(quantile(o, 0.5)), p90: r1(quantile(o, 0.9)), min: r1(Math.min(...o)), max: r1(Math.max(...o)) },
      clientFirstTextMs: { median: med('firstTextMs') },
      stubTtftMs: { median: med('stubTtftMs') },
      serverTimings: { retrievalMs: med('retrievalMs'), firstTokenMs: med('serverFirstTokenMs'), totalMs: med('serverTotalMs') },
      samples,
    };
  } finally {
    await stub.close();
  }
}

async function main(): Promise<void> {
  const opts = { chunks: arg('chunks', 10_000), requests: arg('requests', 30), ttftMs: arg('ttft', 200) };
  const env = await startBenchEnv();
  let result: ChatOverheadResult;
  try {
    result = await benchChatOverhead(env, opts);
  } finally {
    // a server that does not finish its graceful stop in time is killed (and said so), so the bench always ends
    const graceful = env.server.stop('SIGTERM');
    const stopped = await Promise.race([
      graceful.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 30_000).unref()),
    ]);
    if (!stopped) {
      process.stderr.write('chat-overhead: the server did not exit within 30 s of SIGTERM; killing it\n');
      env.server.proc.kill('SIGKILL');
      await graceful;
    }
    await env.close();
  }
  const out = {
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
    measuredAt: new Date().toISOString(),
    method:
      'overhead = client time to first `text` event − stub time from request to first delta; sequential requests after 5 warm-ups; real server process, embedded PostgreSQL',
    ...result,
  };
  const dir = path.join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'chat-overhead.json'), JSON.stringify(out, null, 2) + '\n');
  process.stdout.write(
    `chat overhead before the first text event (${result.chunks} chunks, ${result.requests} requests, stub TTFT ${result.ttftMs} ms): ` +
      `median ${result.overheadMs.median} ms, p90 ${result.overheadMs.p90} ms (retrieval median ${result.serverTimings.retrievalMs} ms)\n`,
  );
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
