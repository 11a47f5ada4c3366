import { createParser } from 'eventsource-parser';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { containsAnswer, CorpusDocument, CorpusQuestion, pagesWith, ParsedCorpusDocument } from './corpus';

/**
 * The evaluation run over a real server: uploads the corpus into one project through
 * `POST /api/projects/:id/documents` (the real ingestion path: queue, parser, chunker, index,
 * and whatever embedding stage the server is configured with), waits until every document is
 * ready, then asks every question through the chat SSE endpoint (`POST /api/chat/projects/:id`,
 * which calls the retrieval service exactly as users get it) against a local OpenAI-compatible
 * stub, timing the `sources` event. The retrieved chunks' text and pages are read back from the
 * database by id. No jest imports: bench/eval.ts drives it.
 */

export interface EvalHit {
  documentName: string;
  pageNumber: number;
  pageEnd: number;
  text: string;
}

export interface QuestionRun {
  q: CorpusQuestion;
  format: string;
  hits: EvalHit[];
  /** Client time from sending the chat request to receiving its `sources` event. */
  sourcesMs: number;
  /** The server's own `done.timings.retrievalMs`. */
  retrievalMs: number | null;
}

export interface Score {
  questions: number;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
  /** Among questions with a relevant hit in the top 5: the first relevant hit cites the answer's page. */
  pageAccuracy: number;
  /** Over all questions: the top hit cites the labelled document on the answer's page. */
  topPageAccuracy: number;
  /** Questions with no source at all. */
  empty: number;
}

export interface EvalReport {
  overall: Score;
  byStyle: Record<string, Score>;
  /** Per split (`dev`, `heldout`). */
  bySplit: Record<string, Score>;
  /** Per split and style (`dev/paraphrase`, `heldout/verbatim`, …). */
  bySplitStyle: Record<string, Score>;
  byFormat: Record<string, Score>;
  byLang: Record<string, Score>;
  timing: { sourcesMs: Quantiles; retrievalMs: Quantiles | null; method: string };
  /** Development questions without the answer in the top 5 (held-out questions are never listed one by one). */
  misses: Array<{ id: string; question: string; document: string; answer: string; top: string[] }>;
  /**
   * Development questions whose answer phrase is in no chunk of its document (split by chunking):
   * no configuration can hit them. Held-out ones are only counted.
   */
  unreachable: string[];
  unreachableHeldout: number;
}

export interface Quantiles {
  n: number;
  median: number;
  p95: number;
  max: number;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const r1 = (x: number) => Math.round(x * 10) / 10;

export function quantiles(xs: number[]): Quantiles {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
  return { n: s.length, median: r1(at(0.5)), p95: r1(at(0.95)), max: r1(s[s.length - 1]) };
}

/** A hit is relevant when it is a chunk of the labelled document whose text contains the answer phrase. */
export const isRelevantHit = (hit: EvalHit, q: CorpusQuestion): boolean =>
  hit.documentName === q.document && containsAnswer(hit.text, q.answer);

/**
 * Whether a hit cites the answer's page: the labelled page when the label has one (always for
 * PDFs), else any page of the labelled document that contains the answer phrase.
 */
export function citesAnswerPage(hit: EvalHit, q: CorpusQuestion, answerPages: Map<string, number[]>): boolean {
  if (hit.documentName !== q.document) return false;
  if (q.page !== undefined) return hit.pageNumber === q.page;
  return (answerPages.get(q.id) ?? []).includes(hit.pageNumber);
}

export function score(runs: QuestionRun[], answerPages: Map<string, number[]>): Score {
  let r1n = 0;
  let r5n = 0;
  let rr = 0;
  let found5 = 0;
  let pageOk = 0;
  let topPageOk = 0;
  let empty = 0;
  for (const { q, hits } of runs) {
    if (!hits.length) empty++;
    const rank = hits.findIndex((h) => isRelevantHit(h, q));
    if (rank === 0) r1n++;
    if (rank >= 0 && rank < 5) {
      r5n++;
      found5++;
      if (citesAnswerPage(hits[rank], q, answerPages)) pageOk++;
    }
    if (rank >= 0) rr += 1 / (rank + 1);
    if (hits[0] && citesAnswerPage(hits[0], q, answerPages)) topPageOk++;
  }
  const n = runs.length || 1;
  return {
    questions: runs.length,
    recallAt1: r3(r1n / n),
    recallAt5: r3(r5n / n),
    mrr: r3(rr / n),
    pageAccuracy: r3(found5 ? pageOk / found5 : 0),
    topPageAccuracy: r3(topPageOk / n),
    empty,
  };
}

const groupBy = <T>(xs: T[], key: (x: T) => string): Record<string, T[]> => {
  const out: Record<string, T[]> = {};
  for (const x of xs) (out[key(x)] ??= []).push(x);
  return out;
};

export function report(runs: QuestionRun[], parsed: ParsedCorpusDocument[], timingMethod: string, unreachable: string[] = []): EvalReport {
  const byName = new Map(parsed.map((d) => [d.name, d]));
  const answerPages = new Map(runs.map(({ q }) => [q.id, byName.get(q.document) ? pagesWith(byName.get(q.document)!, q.answer) : []]));
  const scoreGroups = (key: (r: QuestionRun) => string) =>
    Object.fromEntries(
      Object.entries(groupBy(runs, key))
        .sort()
        .map(([k, v]) => [k, score(v, answerPages)]),
    );
  const retrieval = runs.map((r) => r.retrievalMs).filter((x): x is number => typeof x === 'number');
  return {
    overall: score(runs, answerPages),
    byStyle: scoreGroups((r) => r.q.style),
    bySplit: scoreGroups((r) => r.q.split),
    bySplitStyle: scoreGroups((r) => `${r.q.split}/${r.q.style}`),
    byFormat: scoreGroups((r) => r.format),
    byLang: scoreGroups((r) => r.q.lang),
    timing: {
      sourcesMs: quantiles(runs.map((r) => r.sourcesMs)),
      retrievalMs: retrieval.length ? quantiles(retrieval) : null,
      method: timingMethod,
    },
    misses: runs
      .filter(({ q, hits }) => q.split === 'dev' && !hits.slice(0, 5).some((h) => isRelevantHit(h, q)))
      .map(({ q, hits }) => ({
        id: q.id,
        question: q.question,
        document: q.document,
        answer: q.answer,
        top: hits.slice(0, 5).map((h) => `${h.documentName} p${h.pageNumber}: ${h.text.replace(/\s+/g, ' ').slice(0, 80)}`),
      })),
    unreachable: unreachable.filter((id) => runs.some((r) => r.q.id === id && r.q.split === 'dev')),
    unreachableHeldout: unreachable.filter((id) => runs.some((r) => r.q.id === id && r.q.split !== 'dev')).length,
  };
}

/** What the run needs of a running server. */
export interface EvalServer {
  baseUrl: string;
  dbUrl: string;
  accessToken: string;
}

async function api(server: EvalServer, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.baseUrl}${p}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.accessToken}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const out = await res.json().catch(() => undefined);
  if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${JSON.stringify(out)}`);
  return out;
}

/** Uploads the corpus into a new project and waits until every document is ready (throws if one fails). */
export async function ingestCorpus(
  server: EvalServer,
  docs: CorpusDocument[],
  projectName: string,
  log: (m: string) => void = () => {},
): Promise<{ projectId: string; seconds: number; pages: number; chunks: number }> {
  const { project } = await api(server, 'POST', '/api/projects', { name: projectName });
  const t0 = performance.now();
  const documents: Array<{ id: string; name: string }> = [];
  // several requests of a few files each: an upload takes a bounded number of files
  for (let i = 0; i < docs.length; i += 8) {
    const form = new FormData();
    for (const d of docs.slice(i, i + 8)) form.append('file', new Blob([new Uint8Array(d.content)], { type: d.mimeType }), d.name);
    const res = await fetch(`${server.baseUrl}/api/projects/${project.id}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.accessToken}` },
      body: form,
    });
    if (res.status !== 202) throw new Error(`upload → ${res.status} ${await res.text()}`);
    documents.push(...((await res.json()) as { documents: Array<{ id: string; name: string }> }).documents);
  }
  let pages = 0;
  let chunks = 0;
  const deadline = Date.now() + 15 * 60_000;
  for (const d of documents) {
    for (;;) {
      if (Date.now() > deadline) throw new Error(`${d.name} not ingested (and embedded) within 15 minutes`);
      const doc = await api(server, 'GET', `/api/documents/${d.id}`);
      const row = doc.document ?? doc;
      if (row.status === 'failed') throw new Error(`${d.name} failed: ${row.error}`);
      // with an embedding source, vectors are filled in after the text is indexed: wait for them too
      const emb = row.embeddings as { chunksEmbedded: number; chunksTotal: number } | null | undefined;
      if (row.status === 'ready' && (!emb || emb.chunksEmbedded >= emb.chunksTotal)) {
        pages += row.pageCount ?? 0;
        chunks += row.chunkCount ?? 0;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const seconds = r1((performance.now() - t0) / 1000);
  log(`ingested ${documents.length} documents (${pages} pages, ${chunks} chunks) in ${seconds} s`);
  return { projectId: project.id, seconds, pages, chunks };
}

/** One chat question; the ordered source chunk ids, the time to the `sources` event and the server's retrieval time. */
async function ask(server: EvalServer, projectId: string, message: string): ReturnType<AskFn> {
  const started = performance.now();
  const res = await fetch(`${server.baseUrl}/api/chat/projects/${projectId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.accessToken}` },
    body: JSON.stringify({ message }),
  });
  if (res.status !== 200) throw new Error(`chat → ${res.status} ${await res.text()}`);
  let ids: string[] | null = null;
  let pages: number[] = [];
  let sourcesMs = NaN;
  let retrievalMs: number | null = null;
  let failure: unknown = null;
  const parser = createParser({
    onEvent: (e) => {
      if (e.event === 'sources') {
        sourcesMs = performance.now() - started;
        const chunks = (JSON.parse(e.data) as { chunks: Array<{ id: string; pageNumber: number }> }).chunks;
        ids = chunks.map((c) => c.id);
        pages = chunks.map((c) => c.pageNumber);
      }
      if (e.event === 'done') retrievalMs = (JSON.parse(e.data) as { timings?: { retrievalMs?: number } }).timings?.retrievalMs ?? null;
      if (e.event === 'error') failure = JSON.parse(e.data);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  if (failure || !ids) throw new Error(`chat failed for "${message}": ${JSON.stringify(failure)}`);
  return { ids, pages, sourcesMs, retrievalMs };
}

/**
 * One question's answer from the system under test: the ordered chunk ids it cites, the page each
 * is cited on (the chunk's first page when not given), and timings.
 */
export type AskFn = (question: string) => Promise<{ ids: string[]; pages?: number[]; sourcesMs: number; retrievalMs: number | null }>;

/** The chat endpoint as the question-asker (time to `sources` measured by the client). */
export const chatAsker =
  (server: EvalServer, projectId: string): AskFn =>
  (question) =>
    ask(server, projectId, question);

/** Asks every question (sequentially, after 5 unscored warm-ups) and reads the cited chunks back from the database. */
export async function askAll(
  dbUrl: string,
  questions: CorpusQuestion[],
  formatOf: (doc: string) => string,
  askFn: AskFn,
  log: (m: string) => void = () => {},
): Promise<QuestionRun[]> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    for (const q of questions.slice(0, 5)) await askFn(q.question);
    const runs: QuestionRun[] = [];
    for (const [i, q] of questions.entries()) {
      const a = await askFn(q.question);
      const rows = a.ids.length
        ? ((
            await db.query(
              'select c.id, d.name, c.page_number, c.page_end, c.text from chunks c join documents d on d.id = c.document_id where c.id = any($1::uuid[])',
              [a.ids],
            )
          ).rows as Array<{ id: string; name: string; page_number: number; page_end: number | null; text: string }>)
        : [];
      const byId = new Map(rows.map((r) => [r.id, r]));
      const hits = a.ids.flatMap((id, k) => {
        const r = byId.get(id);
        return r
          ? [{ documentName: r.name, pageNumber: a.pages?.[k] ?? r.page_number, pageEnd: r.page_end ?? r.page_number, text: r.text }]
          : [];
      });
      runs.push({ q, format: formatOf(q.document), hits, sourcesMs: r1(a.sourcesMs), retrievalMs: a.retrievalMs });
      if ((i + 1) % 50 === 0) log(`asked ${i + 1}/${questions.length}`);
    }
    return runs;
  } finally {
    await db.end();
  }
}

/** Ids of the questions whose answer phrase lies in no single chunk of the labelled document. */
export async function unreachableQuestions(dbUrl: string, projectId: string, questions: CorpusQuestion[]): Promise<string[]> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const rows = (
      await db.query('select d.name, c.text from chunks c join documents d on d.id = c.document_id where d.project_id = $1', [projectId])
    ).rows as Array<{ name: string; text: string }>;
    return questions.filter((q) => !rows.some((r) => r.name === q.document && containsAnswer(r.text, q.answer))).map((q) => q.id);
  } finally {
    await db.end();
  }
}
