import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { DEFAULT_FUSION, EQUAL_RRF, FusionParams, fuseRankings, Ranked } from '../src/search/fusion';
import {
  CorpusDocument,
  corpusDocuments,
  corpusQuestions,
  CorpusQuestion,
  parseCorpus,
  ParsedCorpusDocument,
} from '../test/support/eval/corpus';
import { EvalHit, ingestCorpus, isRelevantHit, QuestionRun, report, Score } from '../test/support/eval/run-eval';
import { factories } from '../test/support/factories';
import { startOpenAiStub } from '../test/support/openai-stub';
import { createTestApp } from '../test/support/test-app';
import { EMBEDDER_MODELS, EmbedderName, startEmbedder } from './embedders/server';
import { ROOT } from './lib/env';
import { withTemplateDatabase } from './lib/template-db';

/**
 * Fusion tuning over the evaluation corpus, per embedder (issue 23):
 *
 *   node dist/bench/fusion-tune.js [--embedders glove-sif,use-lite,stub] [--json bench/results/fusion-tune.json]
 *
 * For each embedder the corpus is ingested once, in process (the services on a fresh embedded
 * PostgreSQL database, the real upload and ingestion path, EMBEDDING_BASE_URL/EMBEDDING_MODEL
 * pointing at the local embedder server: bench/embedders/server.ts; `stub` is the test stub's
 * hashed bag of words), until every chunk has a vector. Every question then goes once through
 * RetrievalService.search with `trace`, which hands back the lexical (BM25) and vector rankings
 * before fusion (top 50 each). The fusion parameter grid is then evaluated offline over those
 * rankings with the evaluation's own scoring (a hit is a chunk of the labelled document
 * containing the answer phrase).
 *
 * Selection uses the development split only: the parameters with the best dev recall@1 among
 * those where no question style (paraphrase, verbatim) loses more than one question of recall@5
 * or of recall@1 against lexical retrieval (ties: MRR, then recall@5, then the smaller vector weight). The
 * held-out split is scored only for the lexical, equal-RRF and chosen parameters, and only as
 * aggregates: its questions are never printed, listed or written one by one.
 */
const argv = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};

export type TuneConfig = EmbedderName | 'stub';
const ALL: TuneConfig[] = ['glove-sif', 'use-lite', 'stub'];
/** What search() returns by default (a project without settings.topK). */
const TOP_K = 6;

/** Weighted RRF's grid (the issue's), and the min-max score combination's (k unused there). */
export const GRID = {
  k: [10, 20, 60],
  lexicalWeight: [1],
  vectorWeight: [0, 0.1, 0.2, 0.3, 0.5, 0.7, 1],
  lexicalLeadRatio: [0, 1.2, 1.5, 2],
  minmaxVectorWeight: [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1],
};

export function gridParams(): FusionParams[] {
  const out: FusionParams[] = [];
  for (const k of GRID.k)
    for (const lexicalWeight of GRID.lexicalWeight)
      for (const vectorWeight of GRID.vectorWeight)
        for (const lexicalLeadRatio of GRID.lexicalLeadRatio) out.push({ k, lexicalWeight, vectorWeight, lexicalLeadRatio });
  for (const vectorWeight of GRID.minmaxVectorWeight)
    for (const lexicalLeadRatio of GRID.lexicalLeadRatio)
      out.push({ method: 'minmax', k: 60, lexicalWeight: 1, vectorWeight, lexicalLeadRatio });
  return out;
}

interface Traced {
  q: CorpusQuestion;
  format: string;
  lexical: Ranked[];
  vector: Ranked[];
}

/** A set of traced questions and the chunks they name: fusion is replayed offline. */
interface Traces {
  questions: Traced[];
  chunks: Map<string, EvalHit>;
}

/** The ranking search() would return under `params` (lexical alone when the question got no vector neighbours), as hits. */
function replay(t: Traces, params: FusionParams | 'lexical' | 'vector'): QuestionRun[] {
  return t.questions.map(({ q, format, lexical, vector }) => {
    const ranked =
      params === 'vector'
        ? vector.slice(0, TOP_K)
        : params !== 'lexical' && vector.length
          ? fuseRankings(lexical, vector, TOP_K, params)
          : lexical.slice(0, TOP_K);
    const hits = ranked.flatMap((r) => {
      const h = t.chunks.get(r.id);
      return h ? [h] : [];
    });
    return { q, format, hits, sourcesMs: 0, retrievalMs: null };
  });
}

/** Questions answered in the top 5, per style. */
/** Questions answered in the top 5 per style (`paraphrase`), and first (`paraphrase@1`). */
const r5Counts = (runs: QuestionRun[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const { q, hits } of runs) {
    out[q.style] ??= 0;
    out[`${q.style}@1`] ??= 0;
    if (hits.slice(0, 5).some((h) => isRelevantHit(h, q))) out[q.style]++;
    if (hits[0] && isRelevantHit(hits[0], q)) out[`${q.style}@1`]++;
  }
  return out;
};

type Slices = Record<string, Score>;
export interface SplitRows {
  dev: Slices;
  heldout: Slices;
}

/** Aggregates only: per split, all and per style. */
function rows(t: Traces, params: FusionParams | 'lexical' | 'vector', parsed: ParsedCorpusDocument[]): SplitRows {
  const rep = report(replay(t, params), parsed, 'offline replay of traced rankings');
  const slices = (split: string): Slices => {
    const out: Slices = {};
    if (rep.bySplit[split]) out.all = rep.bySplit[split];
    for (const [k, s] of Object.entries(rep.bySplitStyle)) if (k.startsWith(`${split}/`)) out[k.slice(split.length + 1)] = s;
    return out;
  };
  return { dev: slices('dev'), heldout: slices('heldout') };
}

export interface TuneResult {
  config: TuneConfig;
  model: string;
  dims: number;
  corpus: { chunks: number; ingestSeconds: number; questions: Record<string, number> };
  /** Questions whose search got no vector neighbours (embedder time-out or failure): lexical alone. */
  withoutVectors: Record<string, number>;
  /** The traced default search agreed with the offline replay of DEFAULT_FUSION on this many questions (of all). */
  replayCheck: { agree: number; of: number };
  chosen: FusionParams;
  selection: string;
  /** Dev scores of the best grid points (dev only). */
  devTop: Array<{ params: FusionParams; recallAt1: number; recallAt5: number; mrr: number; r5ByStyle: Record<string, number> }>;
  rows: { lexical: SplitRows; vector: SplitRows; equalRrf: SplitRows; current: SplitRows; chosen: SplitRows };
}

/** Ingests the corpus under one embedder and traces every question's rankings once. */
async function trace(config: TuneConfig, docs: CorpusDocument[], questions: CorpusQuestion[], log: (m: string) => void) {
  const stub = config === 'stub' ? await startOpenAiStub() : null;
  const embedder = config === 'stub' ? null : await startEmbedder(config);
  const model = embedder?.model ?? 'stub-hash-64';
  const url = embedder?.url ?? stub!.url;
  const t = await createTestApp({
    workers: true,
    env: {
      EMBEDDING_BASE_URL: url,
      EMBEDDING_MODEL: model,
      EMBEDDING_API_KEY: 'sk-local',
      // a question's vector may wait behind a chunk batch on 2 busy cores: no lexical-only fallback here
      EMBEDDING_QUERY_TIMEOUT_MS: '60000',
      EMBEDDING_SWEEP_SECONDS: '5',
    },
  });
  try {
    const owner = await factories(t.orm, t.services).makeUser({ platformRole: 'admin' });
    const actor = await t.services.tokens.authenticate(owner.token);
    const ingest = await ingestCorpus({ baseUrl: t.baseUrl, dbUrl: t.dbUrl, accessToken: owner.token }, docs, `tune ${config}`, log);
    const kindOf = new Map(docs.map((d) => [d.name, d.kind as string]));
    const traced: Traced[] = [];
    let agree = 0;
    const withoutVectors: Record<string, number> = {};
    for (const [i, q] of questions.entries()) {
      const tr: { lexical?: Ranked[]; vector?: Ranked[] } = {};
      const hits = await t.services.search.search(actor, ingest.projectId, q.question, { trace: tr, fusion: DEFAULT_FUSION });
      const lexical = tr.lexical ?? [];
      const vector = tr.vector ?? [];
      if (!vector.length) withoutVectors[q.split] = (withoutVectors[q.split] ?? 0) + 1;
      const replayed = vector.length ? fuseRankings(lexical, vector, TOP_K, DEFAULT_FUSION) : lexical.slice(0, TOP_K);
      if (replayed.map((r) => r.id).join() === hits.map((h) => h.chunkId).join()) agree++;
      traced.push({ q, format: kindOf.get(q.document) ?? '?', lexical, vector });
      if ((i + 1) % 100 === 0) log(`traced ${i + 1}/${questions.length}`);
    }
    const db = new pg.Client({ connectionString: t.dbUrl });
    await db.connect();
    const chunks = new Map<string, EvalHit>();
    try {
      const res = await db.query(
        'select c.id, d.name, c.page_number, c.page_end, c.text from chunks c join documents d on d.id = c.document_id where d.project_id = $1',
        [ingest.projectId],
      );
      for (const r of res.rows as Array<{ id: string; name: string; page_number: number; page_end: number | null; text: string }>)
        chunks.set(r.id, { documentName: r.name, pageNumber: r.page_number, pageEnd: r.page_end ?? r.page_number, text: r.text });
    } finally {
      await db.end();
    }
    return {
      model,
      dims: embedder?.dims ?? 64,
      traces: { questions: traced, chunks },
      ingest,
      withoutVectors,
      replayCheck: { agree, of: questions.length },
    };
  } finally {
    await t.close();
    await embedder?.close();
    await stub?.close();
  }
}

interface DevPoint {
  params: FusionParams;
  ok: boolean;
  counts: Record<string, number>;
  r1: number;
  r5: number;
  mrr: number;
}

/** Every grid point scored on the dev split; `ok`: no style loses more than one question of recall@5 or of recall@1 against lexical. */
function evaluateDev(t: Traces): DevPoint[] {
  const dev: Traces = { questions: t.questions.filter((x) => x.q.split === 'dev'), chunks: t.chunks };
  const scoreOf = (runs: QuestionRun[]) => {
    let r1 = 0;
    let r5 = 0;
    let rr = 0;
    for (const { q, hits } of runs) {
      const rank = hits.findIndex((h) => isRelevantHit(h, q));
      if (rank === 0) r1++;
      if (rank >= 0 && rank < 5) r5++;
      if (rank >= 0) rr += 1 / (rank + 1);
    }
    const n = runs.length || 1;
    return { r1: r1 / n, r5: r5 / n, mrr: rr / n };
  };
  const base = r5Counts(replay(dev, 'lexical'));
  return gridParams().map((params) => {
    const runs = replay(dev, params);
    const counts = r5Counts(runs);
    const ok = Object.keys(base).every((style) => (counts[style] ?? 0) >= base[style] - 1);
    return { params, ok, counts, ...scoreOf(runs) };
  });
}

/** Picks the parameters on the dev split (see the file comment). */
function choose(evaluated: DevPoint[]): { chosen: FusionParams; devTop: TuneResult['devTop'] } {
  const eligible = evaluated
    .filter((e) => e.ok)
    .sort(
      (a, b) => b.r1 - a.r1 || b.mrr - a.mrr || b.r5 - a.r5 || a.params.vectorWeight - b.params.vectorWeight || a.params.k - b.params.k,
    );
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    chosen: eligible[0].params,
    devTop: eligible
      .slice(0, 10)
      .map((e) => ({ params: e.params, recallAt1: r3(e.r1), recallAt5: r3(e.r5), mrr: r3(e.mrr), r5ByStyle: e.counts })),
  };
}

export const fmtParams = (p: FusionParams): string =>
  `${p.method === 'minmax' ? 'min-max' : `RRF k=${p.k}`} lexical ${p.lexicalWeight} vector ${p.vectorWeight} lead ${p.lexicalLeadRatio || 'off'}`;

/** The table of one embedder: lexical / vector alone / equal RRF / DEFAULT_FUSION / chosen × split × style (aggregates only). */
export function tuneTable(r: TuneResult): string {
  const lines = [
    `### ${r.config} (${r.model}, ${r.dims}-d): chosen ${fmtParams(r.chosen)}`,
    '',
    '| fusion | split | slice | recall@1 | recall@5 | MRR | top-hit page | questions |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const names: Array<[keyof TuneResult['rows'], string]> = [
    ['lexical', 'lexical'],
    ['vector', 'vector alone'],
    ['equalRrf', 'equal RRF (k=60)'],
    ['current', 'DEFAULT_FUSION now'],
    ['chosen', 'chosen'],
  ];
  for (const [key, label] of names)
    for (const split of ['dev', 'heldout'] as const) {
      const slices = r.rows[key][split];
      if (!Object.keys(slices).length) lines.push(`| ${label} | ${split} | (no questions) | | | | | 0 |`);
      for (const [slice, s] of Object.entries(slices))
        lines.push(
          `| ${label} | ${split} | ${slice} | ${s.recallAt1} | ${s.recallAt5} | ${s.mrr} | ${s.topPageAccuracy} | ${s.questions} |`,
        );
    }
  lines.push(
    '',
    `ingest ${r.corpus.ingestSeconds} s for ${r.corpus.chunks} chunks; questions without vector neighbours: ${JSON.stringify(r.withoutVectors)}; ` +
      `replay check ${r.replayCheck.agree}/${r.replayCheck.of}`,
  );
  return lines.join('\n');
}

export interface CommonResult {
  params: FusionParams;
  selection: string;
  rows: Record<string, SplitRows>;
  /** Each embedder's chosen parameters (and the common ones, and DEFAULT_FUSION) under every embedder: all questions of each split. */
  cross: Array<{ chosenFor: string; params: FusionParams; under: Record<string, { dev: Score; heldout: Score | null }> }>;
}

/** The cross table: parameters (rows) × embedders, recall@1 / recall@5 per split, lexical first. */
export function crossTable(c: CommonResult, results: TuneResult[]): string {
  const cell = (s: Score | null | undefined) => (s ? `${s.recallAt1} / ${s.recallAt5}` : '—');
  const head = results.flatMap((r) => [`${r.config} dev`, `${r.config} heldout`]);
  const lines = [
    '### parameters × embedders (recall@1 / recall@5, all questions of the split)',
    '',
    `| parameters | ${head.join(' | ')} |`,
    `|---|${head.map(() => '---').join('|')}|`,
    `| lexical | ${results.map((r) => `${cell(r.rows.lexical.dev.all)} | ${cell(r.rows.lexical.heldout.all)}`).join(' | ')} |`,
  ];
  for (const x of c.cross)
    lines.push(
      `| ${x.chosenFor}: ${fmtParams(x.params)} | ${results.map((r) => `${cell(x.under[r.config].dev)} | ${cell(x.under[r.config].heldout)}`).join(' | ')} |`,
    );
  return lines.join('\n');
}

/** The common parameters under every embedder, against lexical (aggregates only). */
export function commonTable(c: CommonResult, results: TuneResult[]): string {
  const lines = [
    `### one parameter set for every embedder: ${fmtParams(c.params)}`,
    '',
    '| embedder | split | slice | lexical recall@1 → common | recall@5 | MRR | top-hit page | questions |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results)
    for (const split of ['dev', 'heldout'] as const)
      for (const [slice, s] of Object.entries(c.rows[r.config][split])) {
        const l = r.rows.lexical[split][slice];
        lines.push(
          `| ${r.config} | ${split} | ${slice} | ${l.recallAt1} → ${s.recallAt1} | ${l.recallAt5} → ${s.recallAt5} | ${l.mrr} → ${s.mrr} | ${l.topPageAccuracy} → ${s.topPageAccuracy} | ${s.questions} |`,
        );
      }
  return lines.join('\n');
}

export async function fusionTune(
  configs: TuneConfig[],
  log: (m: string) => void,
): Promise<{ results: TuneResult[]; common: CommonResult }> {
  const docs = await corpusDocuments();
  const parsed = await parseCorpus(docs);
  const questions = corpusQuestions();
  return withTemplateDatabase(async () => {
    const out: TuneResult[] = [];
    const devPoints: DevPoint[][] = [];
    const traces: Traces[] = [];
    for (const config of configs) {
      const t0 = performance.now();
      const clog = (m: string) => log(`${config}: ${m}`);
      const tr = await trace(config, docs, questions, clog);
      const dev = evaluateDev(tr.traces);
      devPoints.push(dev);
      traces.push(tr.traces);
      const { chosen, devTop } = choose(dev);
      const count = (split: string) => questions.filter((q) => q.split === split).length;
      const result: TuneResult = {
        config,
        model: tr.model,
        dims: tr.dims,
        corpus: { chunks: tr.ingest.chunks, ingestSeconds: tr.ingest.seconds, questions: { dev: count('dev'), heldout: count('heldout') } },
        withoutVectors: tr.withoutVectors,
        replayCheck: tr.replayCheck,
        chosen,
        selection:
          'grid on the dev split only: best dev recall@1 with no style losing more than one question of recall@5 against lexical (ties: MRR, recall@5, smaller vector weight, smaller k)',
        devTop,
        rows: {
          lexical: rows(tr.traces, 'lexical', parsed),
          vector: rows(tr.traces, 'vector', parsed),
          equalRrf: rows(tr.traces, EQUAL_RRF, parsed),
          current: rows(tr.traces, DEFAULT_FUSION, parsed),
          chosen: rows(tr.traces, chosen, parsed),
        },
      };
      out.push(result);
      // the dev split's traces, for exploring fusion offline (held-out questions are never written)
      const devFile = flag('save-dev-traces');
      if (devFile)
        writeFileSync(
          devFile.replace('{config}', config),
          JSON.stringify({
            questions: tr.traces.questions.filter((x) => x.q.split === 'dev'),
            chunks: [...tr.traces.chunks.entries()],
          }),
        );
      clog(`done in ${Math.round((performance.now() - t0) / 1000)} s`);
      process.stdout.write(`\n${tuneTable(result)}\n`);
    }
    // one parameter set for every embedder (a default has to serve whichever the deployment has):
    // on the dev split, eligible for each embedder, best mean recall@1 over the embedders
    const joint = gridParams()
      .map((params, i) => ({
        params,
        ok: devPoints.every((d) => d[i].ok),
        r1: devPoints.reduce((a, d) => a + d[i].r1, 0) / devPoints.length,
        mrr: devPoints.reduce((a, d) => a + d[i].mrr, 0) / devPoints.length,
      }))
      .filter((e) => e.ok)
      .sort((a, b) => b.r1 - a.r1 || b.mrr - a.mrr || a.params.vectorWeight - b.params.vectorWeight)[0];
    const common: CommonResult = {
      params: joint.params,
      selection:
        'dev split only: eligible for every embedder (no style losing more than one question of recall@5 or recall@1), best mean dev recall@1',
      rows: Object.fromEntries(out.map((r, i) => [r.config, rows(traces[i], joint.params, parsed)])),
      cross: [
        ...out.map((r) => ({ chosenFor: `chosen for ${r.config}`, params: r.chosen })),
        { chosenFor: 'common', params: joint.params },
        { chosenFor: 'DEFAULT_FUSION now', params: DEFAULT_FUSION },
        { chosenFor: 'equal RRF', params: EQUAL_RRF },
      ].map((x) => ({
        ...x,
        under: Object.fromEntries(
          out.map((r, i) => {
            const rr = rows(traces[i], x.params, parsed);
            return [r.config, { dev: rr.dev.all, heldout: rr.heldout.all ?? null }];
          }),
        ),
      })),
    };
    process.stdout.write(`\n${commonTable(common, out)}\n\n${crossTable(common, out)}\n`);
    return { results: out, common };
  });
}

async function main(): Promise<void> {
  const configs = (flag('embedders')?.split(',') ?? ALL) as TuneConfig[];
  for (const c of configs) if (!ALL.includes(c)) throw new Error(`unknown embedder ${c} (${ALL.join(', ')})`);
  const file = path.resolve(ROOT, flag('json') ?? 'bench/results/fusion-tune.json');
  const log = (m: string) => process.stderr.write(`fusion-tune: ${m}\n`);
  const { results, common } = await fusionTune(configs, log);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify(
      {
        machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
        command: `node dist/bench/fusion-tune.js --embedders ${configs.join(',')}`,
        measuredAt: new Date().toISOString(),
        topK: TOP_K,
        grid: GRID,
        models: EMBEDDER_MODELS,
        embedders: Object.fromEntries(results.map((r) => [r.config, r])),
        common,
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
      process.stderr.write(`fusion-tune failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
