import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { startOpenAiStub, stubEmbedding } from '../test/support/openai-stub';
import { benchActor, openDocsBenchEnv, quantile, round, table, waitReady, writeResult } from './docs-env';
import { seedSyntheticChunks } from './retrieval';

/**
 * The semantic stage's costs, with the OpenAI-compatible stub as the embeddings provider (the
 * environment source, EMBEDDING_MODEL / EMBEDDING_BASE_URL):
 *
 * 1. Retrieval latency at CHUNKS chunks WITH vectors present (portable path: exact cosine over the
 *    in-process matrix, fused with BM25): `retrieval.search()` — the call chat makes — per question,
 *    reported in total and without the provider's own response time (the question's embedding
 *    call, measured separately).
 * 2. Ingestion with the embedding stage: a TEXT_PAGES-page text document uploaded through the
 *    services; time until `ready` (lexical) and until every chunk has its vector.
 *
 *   node dist/bench/retrieval-vectors.js [--chunks 100000] [--dims 384] [--queries 300]
 */
const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

export interface VectorBenchResult {
  chunks: number;
  dims: number;
  seedSeconds: number;
  vectorSeedSeconds: number;
  latencyMs: { queries: number; median: number; p95: number; p99: number; max: number };
  excludingProviderMs: { median: number; p95: number; p99: number };
  providerMs: { median: number; p95: number };
  target: string;
  met: boolean;
  ingest: {
    pages: number;
    chunks: number;
    readySeconds: number;
    embeddedSeconds: number;
    pagesPerSecondToReady: number;
    chunksEmbeddedPerSecond: number;
  };
}

export async function benchVectors(
  opts: { chunks?: number; dims?: number; queries?: number; pages?: number } = {},
): Promise<VectorBenchResult> {
  const chunks = opts.chunks ?? 100_000;
  const dims = opts.dims ?? 384;
  const queries = opts.queries ?? 300;
  const pages = opts.pages ?? 200;
  const stub = await startOpenAiStub();
  stub.setEmbeddings({ dims });
  const env = await openDocsBenchEnv({
    workers: true,
    env: { EMBEDDING_MODEL: 'stub-embed', EMBEDDING_BASE_URL: stub.url, EMBEDDING_SWEEP_SECONDS: '3600', JOB_POLLING_SECONDS: '1' },
  });
  try {
    const big = await env.newProject(`bench: ${chunks} chunks with vectors`);
    const s0 = performance.now();
    await seedSyntheticChunks(env.orm, big.id, chunks, env.config.searchLanguage);
    const seedSeconds = round((performance.now() - s0) / 1000);
    // vectors as the embedding job stores them (VectorStore.write), computed with the stub's function
    const v0 = performance.now();
    const exec = (sql: string, params: unknown[] = []) =>
      env.orm.em.fork().getConnection().execute<Array<{ id: string; text: string }>>(sql, params);
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = await exec('select id, text from chunks where project_id = ? and id > ? order by id limit 2000', [big.id, after]);
      if (!rows.length) break;
      await env.services.embeddings.store.write(
        env.orm.em.fork(),
        big.id,
        'stub-embed',
        rows.map((r) => ({ chunkId: r.id, vector: Float32Array.from(stubEmbedding(r.text, dims, [], 'stub-embed')) })),
      );
      after = rows[rows.length - 1].id;
    }
    const vectorSeedSeconds = round((performance.now() - v0) / 1000);

    const qs = (await exec('select text from chunks where project_id = ? order by md5(id::text) limit ?', [big.id, queries])).map((r) => {
      const words = r.text.replace(/[.,]/g, '').split(/\s+/);
      return `what is the ${words[3]} ${words[7]} for ${words[11]} ${words[13]}?`;
    });
    for (const q of qs.slice(0, 20)) await env.services.retrieval.search(null, big.id, q); // warm-up (loads the matrix)
    const total: number[] = [];
    const provider: number[] = [];
    for (const q of qs) {
      const timings: { embeddingMs?: number } = {};
      const t0 = performance.now();
      await env.services.retrieval.search(null, big.id, q, { timings });
      total.push(performance.now() - t0);
      if (timings.embeddingMs === undefined) throw new Error('the question was not embedded (retrieval fell back to lexical)');
      provider.push(timings.embeddingMs);
    }
    const excluding = total.map((t, i) => t - provider[i]);
    const p95 = round(quantile(excluding, 0.95));

    // ingestion with the embedding stage
    const paragraphs = Array.from({ length: pages * 3 }, (_, i) =>
      `Section ${i}. ${qs[i % qs.length].replace('?', '.')} The procedure continues with step ${i} and its checks.`.repeat(6),
    );
    const text = Array.from({ length: pages }, (_, p) => paragraphs.slice(p * 3, p * 3 + 3).join('\n\n')).join('\f');
    const small = await env.newProject('bench: ingestion with embeddings');
    const i0 = performance.now();
    const [u] = await env.services.documents.upload(benchActor(), small.id, [
      { name: 'manual.txt', mimeType: 'text/plain', content: Buffer.from(text) },
    ]);
    const ready = await waitReady(env.orm, u.document.id);
    if (ready.status !== 'ready') throw new Error(`ingestion failed: ${ready.error}`);
    const readySeconds = (performance.now() - i0) / 1000;
    let counts = { total: 0, embedded: 0 };
    for (;;) {
      const [c] = await env.orm.em
        .fork()
        .getConnection()
        .execute<Array<{ total: number; embedded: number }>>(
          `select count(*)::int as total, count(e.chunk_id)::int as embedded from chunks c left join chunk_embeddings e on e.chunk_id = c.id and e.model = 'stub-embed' where c.document_id = ?`,
          [u.document.id],
        );
      counts = c;
      if (c.total > 0 && c.embedded === c.total) break;
      if (performance.now() - i0 > 600_000) throw new Error('embedding did not finish in 10 minutes');
      await new Promise((r) => setTimeout(r, 50));
    }
    const embeddedSeconds = (performance.now() - i0) / 1000;
    return {
      chunks,
      dims,
      seedSeconds,
      vectorSeedSeconds,
      latencyMs: {
        queries: total.length,
        median: round(quantile(total, 0.5)),
        p95: round(quantile(total, 0.95)),
        p99: round(quantile(total, 0.99)),
        max: round(Math.max(...total)),
      },
      excludingProviderMs: { median: round(quantile(excluding, 0.5)), p95, p99: round(quantile(excluding, 0.99)) },
      providerMs: { median: round(quantile(provider, 0.5)), p95: round(quantile(provider, 0.95)) },
      target: 'p95 ≤ 50 ms at 100,000 chunks with vectors, excluding the provider',
      met: p95 <= 50,
      ingest: {
        pages,
        chunks: counts.total,
        readySeconds: round(readySeconds),
        embeddedSeconds: round(embeddedSeconds),
        pagesPerSecondToReady: round(pages / readySeconds),
        chunksEmbeddedPerSecond: round(counts.total / (embeddedSeconds - readySeconds)),
      },
    };
  } finally {
    await env.close();
    await stub.close();
  }
}

async function main(): Promise<void> {
  const r = await benchVectors({
    chunks: arg('chunks', 100_000),
    dims: arg('dims', 384),
    queries: arg('queries', 300),
    pages: arg('pages', 200),
  });
  const file = writeResult('retrieval-vectors', { ...r, measuredAt: new Date().toISOString() });
  process.stdout.write(
    `\n${table(
      ['metric', 'measured', 'target', 'met'],
      [
        [
          `hybrid retrieval, ${r.chunks.toLocaleString('en')} chunks with ${r.dims}-d vectors, excluding the provider`,
          `median ${r.excludingProviderMs.median} ms, p95 ${r.excludingProviderMs.p95} ms, p99 ${r.excludingProviderMs.p99} ms (${r.latencyMs.queries} queries)`,
          'p95 ≤ 50 ms',
          r.met ? 'yes' : 'NO',
        ],
        [
          'same, including the stub provider',
          `median ${r.latencyMs.median} ms, p95 ${r.latencyMs.p95} ms (provider median ${r.providerMs.median} ms)`,
          '—',
          '—',
        ],
        [
          `ingestion with the stub embedder, ${r.ingest.pages}-page text`,
          `ready after ${r.ingest.readySeconds} s (${r.ingest.pagesPerSecondToReady} pages/s); ${r.ingest.chunks} chunks embedded after ${r.ingest.embeddedSeconds} s (${r.ingest.chunksEmbeddedPerSecond} chunks/s)`,
          '—',
          '—',
        ],
        ['seeding (chunks / vectors)', `${r.seedSeconds} s / ${r.vectorSeedSeconds} s`, '—', '—'],
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
