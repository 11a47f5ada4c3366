import 'reflect-metadata';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startOpenAiStub } from '../test/support/openai-stub';
import { corpusDocuments, corpusQuestions, parseCorpus, verifyLabels } from '../test/support/eval/corpus';
import { askAll, chatAsker, EvalReport, ingestCorpus, report, Score, unreachableQuestions } from '../test/support/eval/run-eval';
import { EMBEDDERS, EmbedderName, startEmbedder } from './embedders/server';
import { ROOT, startBenchEnv } from './lib/env';

/**
 * Retrieval quality on the independent evaluation corpus (test/fixtures/eval: 21 real public
 * documents in every format and 5 languages, questions labelled with document, page and answer).
 *
 * A real server process (`dist/src/main.js`, fresh embedded PostgreSQL) with whatever retrieval
 * configuration the environment gives it — the process environment is passed through, so
 * EMBEDDING_BASE_URL / EMBEDDING_MODEL / EMBEDDING_API_KEY and any retrieval setting apply as
 * they would in production; `--env KEY=VALUE` adds more. The corpus is uploaded through the REST
 * API and ingested by the server's own workers; each question is asked through the chat SSE
 * endpoint (the upstream model is the local OpenAI-compatible stub) and scored on the `sources`
 * it returns. Results are kept per configuration label in the JSON file (other labels' results
 * stay), so the three configurations can be run one after the other:
 *
 *   node dist/bench/eval.js [--config lexical] [--env KEY=VALUE]... [--json bench/results/eval.json] [--only-lang zh,ja]
 *   node dist/bench/eval.js --configs lexical,glove-sif,use-lite,stub
 *
 * The default label is `embedding:<EMBEDDING_MODEL>` when EMBEDDING_MODEL is set, else `default`.
 * `--configs` runs several configurations one after the other, each on a fresh server: `lexical`
 * (no embedding source), `glove-sif` and `use-lite` (a local embedder server from
 * bench/embedders/server.ts, started for the run, EMBEDDING_* pointing at it) and `stub` (the test
 * stub's hashed bag of words). Results are reported per split (dev, heldout) and style too; the
 * misses list holds development questions only (held-out questions are reported as aggregates).
 */
const argv = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const flags = (name: string): string[] => argv.flatMap((a, i) => (a === `--${name}` && argv[i + 1] ? [argv[i + 1]] : []));

/**
 * The configurations `--configs` knows: lexical, the local embedders, the stub's hashed vectors,
 * and lexical retrieval re-scored by the stub's `/rerank` (the share of the question's words a
 * passage holds: it measures the stage's plumbing and cost, not a real reranker's quality).
 */
export const EVAL_CONFIGS = ['lexical', ...EMBEDDERS, 'stub', 'rerank-stub'] as const;
export type EvalConfigName = (typeof EVAL_CONFIGS)[number];

/**
 * The embedding environment of a named configuration (null: not one of EVAL_CONFIGS, use the
 * environment as given). `stubUrl` is the chat stub, whose /embeddings the `stub` configuration uses.
 */
async function configEnv(config: string, stubUrl: string): Promise<{ env: Record<string, string>; close(): Promise<void> } | null> {
  // a question's vector may queue behind other work on 2 shared cores: time-outs would measure lexical instead
  const common = { EMBEDDING_API_KEY: 'sk-local', EMBEDDING_QUERY_TIMEOUT_MS: '10000' };
  if (config === 'lexical') return { env: {}, close: async () => {} };
  if (config === 'stub') return { env: { ...common, EMBEDDING_BASE_URL: stubUrl, EMBEDDING_MODEL: 'stub-hash-64' }, close: async () => {} };
  if (config === 'rerank-stub')
    return {
      env: { RERANK_BASE_URL: stubUrl, RERANK_MODEL: 'stub-rerank', RERANK_API_KEY: 'sk-local', RERANK_TIMEOUT_MS: '10000' },
      close: async () => {},
    };
  if ((EMBEDDERS as readonly string[]).includes(config)) {
    const e = await startEmbedder(config as EmbedderName);
    return { env: { ...common, EMBEDDING_BASE_URL: e.url, EMBEDDING_MODEL: e.model }, close: () => e.close() };
  }
  return null;
}

export interface EvalConfigResult extends EvalReport {
  config: string;
  env: Record<string, string>;
  measuredAt: string;
  corpus: { documents: number; questions: number; pages: number; chunks: number; ingestSeconds: number };
}

/** Runs the evaluation once against a fresh server with `env` added to its environment. */
export async function benchEval(config: string, env: Record<string, string>, log: (m: string) => void): Promise<EvalConfigResult> {
  const docs = await corpusDocuments();
  const parsed = await parseCorpus(docs);
  const langs = flag('only-lang')?.split(',');
  const split = flag('split');
  const questions = corpusQuestions().filter((q) => (!langs || langs.includes(q.lang)) && (!split || q.split === split));
  const failures = verifyLabels(parsed, questions);
  if (failures.length) throw new Error(`${failures.length} labels fail verification (node dist/bench/eval-labels.js check)`);
  const stub = await startOpenAiStub({ deltas: ['See the sources [1].'] });
  const named = await configEnv(config, stub.url);
  if (named) env = { ...named.env, ...env };
  const server = await startBenchEnv(env).catch(async (e) => {
    await named?.close();
    await stub.close();
    throw e;
  });
  try {
    const login = await fetch(`${server.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(server.superadmin),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    const target = { baseUrl: server.baseUrl, dbUrl: server.dbUrl, accessToken };
    const res = await fetch(`${server.baseUrl}/api/providers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ name: 'Stub', slug: 'stub', type: 'custom', baseUrl: stub.url, apiKey: 'sk-eval', models: ['eval-model'] }),
    });
    if (!res.ok) throw new Error(`provider → ${res.status} ${await res.text()}`);
    const ingest = await ingestCorpus(target, docs, `eval: ${config}`, log);
    const kindOf = new Map(docs.map((d) => [d.name, d.kind]));
    const runs = await askAll(server.dbUrl, questions, (name) => kindOf.get(name) ?? '?', chatAsker(target, ingest.projectId), log);
    const unreachable = await unreachableQuestions(server.dbUrl, ingest.projectId, questions);
    const rep = report(
      runs,
      parsed,
      "sourcesMs: client time from sending POST /api/chat/projects/:id to its `sources` SSE event (real server process, sequential, after 5 warm-ups); retrievalMs: the server's done.timings.retrievalMs",
      unreachable,
    );
    return {
      config,
      env,
      measuredAt: new Date().toISOString(),
      corpus: {
        documents: docs.length,
        questions: questions.length,
        pages: ingest.pages,
        chunks: ingest.chunks,
        ingestSeconds: ingest.seconds,
      },
      ...rep,
    };
  } finally {
    await server.close();
    await named?.close();
    await stub.close();
  }
}

const pct = (s: Score) => `${s.recallAt1} | ${s.recallAt5} | ${s.mrr} | ${s.pageAccuracy} | ${s.topPageAccuracy} | ${s.questions}`;

/** Per split, then per split and style: `dev`, `dev/paraphrase`, `dev/verbatim`, `heldout`, … (aggregates only). */
export function splitRows(r: Pick<EvalReport, 'bySplit' | 'bySplitStyle'>): Array<[string, Score]> {
  return Object.entries(r.bySplit ?? {}).flatMap(([split, s]) => [
    [split, s] as [string, Score],
    ...Object.entries(r.bySplitStyle ?? {}).filter(([k]) => k.startsWith(`${split}/`)),
  ]);
}

/** The markdown table of one configuration: overall, then per style, format and language. */
export function evalTable(r: EvalConfigResult): string {
  const rows = [
    `| ${r.config}: all | ${pct(r.overall)} |`,
    ...Object.entries(r.byStyle).map(([k, s]) => `| style ${k} | ${pct(s)} |`),
    ...splitRows(r).map(([k, s]) => `| split ${k} | ${pct(s)} |`),
    ...Object.entries(r.byFormat).map(([k, s]) => `| format ${k} | ${pct(s)} |`),
    ...Object.entries(r.byLang).map(([k, s]) => `| language ${k} | ${pct(s)} |`),
  ];
  const t = r.timing;
  return [
    '| slice | recall@1 | recall@5 | MRR | page accuracy | top-hit page | questions |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `answer phrase split across chunks (unreachable): ${r.unreachable.length} dev, ${r.unreachableHeldout ?? 0} held-out; time to sources: median ${t.sourcesMs.median} ms, p95 ${t.sourcesMs.p95} ms` +
      (t.retrievalMs ? ` (server retrieval median ${t.retrievalMs.median} ms, p95 ${t.retrievalMs.p95} ms)` : ''),
  ].join('\n');
}

async function main(): Promise<void> {
  const extra = Object.fromEntries(flags('env').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const listed = flag('configs')?.split(',');
  for (const c of listed ?? [])
    if (!(EVAL_CONFIGS as readonly string[]).includes(c)) throw new Error(`unknown config ${c} (${EVAL_CONFIGS.join(', ')})`);
  const configs = listed ?? [flag('config') ?? (process.env.EMBEDDING_MODEL ? `embedding:${process.env.EMBEDDING_MODEL}` : 'default')];
  const file = path.resolve(ROOT, flag('json') ?? 'bench/results/eval.json');
  for (const config of configs) {
    const log = (m: string) => process.stderr.write(`eval[${config}]: ${m}\n`);
    const result = await benchEval(config, extra, log);
    const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { configs?: Record<string, EvalConfigResult> }) : {};
    const out = {
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
      command: 'node dist/bench/eval.js --config <label> [--env KEY=VALUE] | --configs lexical,glove-sif,use-lite,stub',
      configs: { ...(previous.configs ?? {}), [config]: result },
    };
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
    process.stdout.write(`\n${evalTable(result)}\n\nmisses (dev questions, top 5 without the answer): ${result.misses.length}\n${file}\n`);
  }
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
