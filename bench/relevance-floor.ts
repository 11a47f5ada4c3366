import 'reflect-metadata';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RELEVANCE_FLOOR, type SearchTrace } from '../src/search/relevance';
import { corpusDocuments, corpusQuestions, EVAL_CORPUS_DIR } from '../test/support/eval/corpus';
import { ingestCorpus, isRelevantHit } from '../test/support/eval/run-eval';
import { factories } from '../test/support/factories';
import { startOpenAiStub } from '../test/support/openai-stub';
import { createTestApp } from '../test/support/test-app';
import { EMBEDDERS, EmbedderName, startEmbedder } from './embedders/server';
import { ROOT } from './lib/env';
import { withTemplateDatabase } from './lib/template-db';

/**
 * The relevance floor of "nothing relevant" (issue 35, section 5; src/search/relevance.ts),
 * measured on the evaluation corpus:
 *
 *   node dist/bench/relevance-floor.js [--configs lexical,stub,glove-sif,use-lite] [--dev-only] [--json bench/results/relevance-floor.json]
 *
 * For each configuration the corpus is ingested in process (the services on a fresh embedded
 * PostgreSQL, the real upload and ingestion path; `stub` adds the test stub's hashed vectors,
 * `glove-sif` and `use-lite` the local embedders of bench/embedders), then
 * every question goes once through RetrievalService.search with the floor off (`relevanceFloor: 0`;
 * the content-word rule still applies) and `trace`, which hands back the question's relevance.
 *
 * The floor is chosen on the development split only, whose every question has its answer in the
 * corpus: the largest two-decimal value strictly below its lowest relevance, so it drops none
 * (`--dev-only` asks no held-out question: the run that chooses the floor never sees them).
 * The held-out split is scored once with RELEVANCE_FLOOR (the value in the code), as aggregates:
 * recall@1/@5 with and without the floor and the questions left without sources. The off-topic
 * questions (test/fixtures/eval/off-topic.json: cooking, sport, history, nature…; none about the
 * corpus's subjects) count how many the floor answers with no passage.
 */
const argv = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const TOP_K = 6;

interface Probe {
  split: string;
  relevance: number;
  /** Rank of the first hit holding the answer (-1: none in the top TOP_K; off-topic: -1). */
  rank: number;
  id?: string;
  question?: string;
}

async function probe(config: string, log: (m: string) => void): Promise<Probe[]> {
  if (!['lexical', 'stub', ...EMBEDDERS].includes(config))
    throw new Error(`unknown config ${config} (lexical, stub, ${EMBEDDERS.join(', ')})`);
  const stub = config === 'stub' ? await startOpenAiStub() : null;
  const embedder = (EMBEDDERS as readonly string[]).includes(config) ? await startEmbedder(config as EmbedderName) : null;
  const vectors = stub ? { url: stub.url, model: 'stub-hash-64' } : embedder;
  const env: Record<string, string> = vectors
    ? {
        EMBEDDING_BASE_URL: vectors.url,
        EMBEDDING_MODEL: vectors.model,
        EMBEDDING_API_KEY: 'sk-local',
        EMBEDDING_QUERY_TIMEOUT_MS: '60000',
      }
    : {};
  const t = await createTestApp({ workers: true, env });
  try {
    const owner = await factories(t.orm, t.services).makeUser({ platformRole: 'admin' });
    const actor = await t.services.tokens.authenticate(owner.token);
    const docs = await corpusDocuments();
    const ingest = await ingestCorpus({ baseUrl: t.baseUrl, dbUrl: t.dbUrl, accessToken: owner.token }, docs, `floor ${config}`, log);
    const offTopic = JSON.parse(readFileSync(path.join(EVAL_CORPUS_DIR, 'off-topic.json'), 'utf8')) as string[];
    const asks = [
      ...corpusQuestions()
        .filter((q) => !argv.includes('--dev-only') || q.split === 'dev')
        .map((q) => ({ q, split: q.split, question: q.question })),
      ...offTopic.map((question) => ({ q: null, split: 'off-topic', question })),
    ];
    const out: Probe[] = [];
    const dump: unknown[] | null = flag('dump') ? [] : null;
    for (const { q, split, question } of asks) {
      const trace: SearchTrace = {};
      const hits = await t.services.search.search(actor, ingest.projectId, question, { trace, relevanceFloor: 0, topK: TOP_K });
      const rank = q ? hits.findIndex((h) => isRelevantHit({ ...h, pageEnd: h.pageNumber }, q)) : -1;
      // held-out questions are kept as aggregates only: no id, no text
      out.push({ split, relevance: trace.relevance ?? 0, rank, ...(split === 'heldout' ? {} : { id: q?.id, question }) });
      if (dump && split !== 'heldout')
        dump.push({
          split,
          question,
          rank,
          relevance: trace.relevance,
          scores: trace.lexical?.slice(0, 6).map((r) => r.score),
          terms: trace.terms?.map((x) => [x.df, x.idf]),
          absent: trace.absentWords,
          n: trace.projectChunks,
        });
    }
    if (dump) writeFileSync(flag('dump')!.replace('{config}', config), JSON.stringify(dump));
    return out;
  } finally {
    await t.close();
    await stub?.close();
    await embedder?.close();
  }
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** recall@1/@5 over `probes`, with the floor cutting questions below it to no sources. */
function scores(probes: Probe[], floor: number) {
  const n = probes.length || 1;
  const kept = probes.filter((p) => p.relevance > 0 && p.relevance >= floor);
  return {
    questions: probes.length,
    recallAt1: r3(kept.filter((p) => p.rank === 0).length / n),
    recallAt5: r3(kept.filter((p) => p.rank >= 0 && p.rank < 5).length / n),
    emptySources: probes.length - kept.length,
  };
}

async function main(): Promise<void> {
  const configs = flag('configs')?.split(',') ?? ['lexical'];
  const file = path.resolve(ROOT, flag('json') ?? 'bench/results/relevance-floor.json');
  const results: Record<string, unknown> = {};
  await withTemplateDatabase(async () => {
    for (const config of configs) {
      const probes = await probe(config, (m) => process.stderr.write(`relevance-floor[${config}]: ${m}\n`));
      const of = (split: string) => probes.filter((p) => p.split === split);
      const dev = of('dev');
      const devMin = Math.min(...dev.map((p) => p.relevance));
      const measured = Math.ceil(devMin * 100) / 100 - 0.01;
      const lowestDev = [...dev].sort((a, b) => a.relevance - b.relevance).slice(0, 8);
      const offTopic = of('off-topic');
      const result = {
        devLowest: lowestDev.map((p) => ({ id: p.id, question: p.question, relevance: r3(p.relevance), rank: p.rank })),
        devMin: r3(devMin),
        measuredFloor: r3(measured),
        floorInCode: RELEVANCE_FLOOR,
        dev: { without: scores(dev, 0), with: scores(dev, RELEVANCE_FLOOR) },
        heldout: {
          without: scores(of('heldout'), 0),
          with: scores(of('heldout'), RELEVANCE_FLOOR),
          min: r3(Math.min(...of('heldout').map((p) => p.relevance))),
        },
        offTopic: {
          questions: offTopic.length,
          emptySources: scores(offTopic, RELEVANCE_FLOOR).emptySources,
          relevance: offTopic.map((p) => ({ question: p.question, relevance: r3(p.relevance) })),
        },
      };
      results[config] = result;
      process.stdout.write(`\n${config}: ${JSON.stringify(result, null, 1)}\n`);
    }
  });
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify(
      {
        machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
        command: `node dist/bench/relevance-floor.js --configs ${configs.join(',')}`,
        measuredAt: new Date().toISOString(),
        topK: TOP_K,
        configs: results,
      },
      null,
      2,
    ) + '\n',
  );
  process.stdout.write(`\n${file}\n`);
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`relevance-floor failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
