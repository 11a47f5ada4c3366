import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small real HTTP server speaking the OpenAI-compatible chat completions protocol (SSE streaming
 * and plain JSON), for tests and benchmarks. Each request follows a behaviour: the default one
 * (`set`) or the next queued one (`once`). Every request is recorded, with its Authorization header
 * and whether the client went away before the answer finished.
 */
export interface StubBehaviour {
  /** HTTP status (default 200); a non-2xx answer sends `errorBody`. */
  status?: number;
  errorBody?: unknown;
  /** The streamed answer, one SSE chunk per entry (default ["Hello", " world", "."]). */
  deltas?: string[];
  /** Delay before the headers are sent. */
  headersDelayMs?: number;
  /** Delay between the headers and the first delta (the upstream's time to first token). */
  ttftMs?: number;
  /** Delay between two deltas. */
  deltaDelayMs?: number;
  /** Send the usage chunk (default true: computed from the text) or a given usage. */
  usage?: boolean | { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** Destroy the socket after this many deltas (a mid-stream failure). */
  failAfter?: number;
  /** Send an `{error}` data frame after this many deltas, then end. */
  errorEventAfter?: number;
  /** Stop answering: before the headers, or after `hangAfter` deltas. The socket stays open. */
  hang?: 'headers' | 'body';
  hangAfter?: number;
  /** End the stream without `data: [DONE]` (and without a finish_reason). */
  omitDone?: boolean;
  /** The non-streaming reply (default: the deltas joined). */
  content?: string;
  /** Answer 401 unless the request carries `Authorization: Bearer <requireKey>`. */
  requireKey?: string;
  /** Answer 404 model_not_found for any other model. */
  models?: string[];
}

/**
 * How `/embeddings` answers (a channel of its own, so embedding calls never take a chat test's
 * queued behaviour). Vectors are deterministic: a hashed bag of words (lower-cased words, a
 * trailing "s" dropped, short stop words skipped), each word adding ±1 to a few of `dims`
 * coordinates, so texts sharing words are near and unrelated ones nearly orthogonal. `synonyms`
 * groups words that count as one (the stub's "semantics": a question can match a passage with
 * which it shares no word).
 */
export interface EmbeddingBehaviour {
  status?: number;
  errorBody?: unknown;
  /** Delay before answering. */
  delayMs?: number;
  dims?: number;
  synonyms?: string[][];
  /** Destroy the socket instead of answering (a network failure). */
  drop?: boolean;
  /** Answer 404 model_not_found for any other model. */
  models?: string[];
  requireKey?: string;
}

/**
 * How `/rerank` answers (a channel of its own, like `/embeddings`). Scores are deterministic and
 * meaningful: a document's relevance is the share of the query's distinct words (normalised as for
 * embeddings: lower-cased, a trailing "s" dropped, stop words skipped) that it contains, so
 * coverage of the question counts and repetition does not (BM25 weighs both differently).
 * Answers `{results: [{index, relevance_score}]}` best first, cut to `top_n` (Cohere, Jina, vLLM);
 * with `native`, it is text-embeddings-inference: `{query, texts}` → `[{index, score}]`, and a
 * body without `texts` gets 422 "missing field `texts`".
 */
export interface RerankBehaviour {
  status?: number;
  errorBody?: unknown;
  /** Delay before answering. */
  delayMs?: number;
  /** Destroy the socket instead of answering (a network failure). */
  drop?: boolean;
  /** Answer 404 model_not_found for any other model. */
  models?: string[];
  requireKey?: string;
  native?: boolean;
}

export interface RerankRequest {
  model: string;
  query: string;
  documents: string[];
  topN: number | null;
  authorization: string | null;
  status: number;
}

export interface EmbeddingRequest {
  model: string;
  input: string[];
  authorization: string | null;
  status: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | null;
  body: any;
  receivedAt: number;
  /** When the first delta was written (performance.now() of this process). */
  firstDeltaAt?: number;
  /** True when the client closed the connection before the stub finished its answer. */
  aborted: boolean;
  finished: boolean;
  /** Resolves when the connection for this request has closed. */
  closed: Promise<void>;
}

export interface OpenAiStub {
  /** Base URL to configure as a provider's baseUrl (ends with /v1). */
  url: string;
  requests: RecordedRequest[];
  /** Every `/embeddings` call (kept apart from `requests`). */
  embeddingRequests: EmbeddingRequest[];
  setEmbeddings(b: EmbeddingBehaviour): void;
  /** Every `/rerank` call (kept apart from `requests`). */
  rerankRequests: RerankRequest[];
  setRerank(b: RerankBehaviour): void;
  onceRerank(b: RerankBehaviour): void;
  onceEmbeddings(b: EmbeddingBehaviour): void;
  /** The stub's vector for a text under the current embedding behaviour. */
  embed(text: string, model?: string): number[];
  set(b: StubBehaviour): void;
  once(b: StubBehaviour): void;
  /** Back to the initial behaviour with nothing recorded; an answer still delayed is not recorded afterwards. */
  reset(): void;
  last(): RecordedRequest;
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_DELTAS = ['Hello', ' world', '.'];
const estimateTokens = (s: string) => Math.max(1, Math.ceil(s.length / 4));

const STOP = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'in',
  'on',
  'and',
  'or',
  'is',
  'are',
  'be',
  'it',
  'do',
  'i',
  'my',
  'how',
  'what',
  'when',
  'for',
  'with',
  'this',
  'that',
  'by',
  'at',
  'as',
  'can',
  'does',
]);

function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The stub's deterministic embedding (see EmbeddingBehaviour). The model name seeds the hashes, so two models' vectors differ. */
export function stubEmbedding(text: string, dims = 64, synonyms: string[][] = [], model = ''): number[] {
  const canon = new Map<string, string>();
  for (const group of synonyms) for (const w of group) canon.set(w.toLowerCase(), group[0].toLowerCase());
  const v = new Array<number>(dims).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const raw of words) {
    if (STOP.has(raw)) continue;
    const w0 = raw.length > 3 && raw.endsWith('s') ? raw.slice(0, -1) : raw;
    const w = canon.get(w0) ?? canon.get(raw) ?? w0;
    for (let k = 0; k < 3; k++) {
      const h = fnv1a(`${model}\u0000${w}\u0000${k}`);
      v[h % dims] += h & 0x80000000 ? -1 : 1;
    }
  }
  if (!v.some((x) => x !== 0)) v[fnv1a(model) % dims] = 1e-3;
  return v;
}

/** The words of a text as the stub's embedder and reranker see them. */
function stubWords(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((w) => !STOP.has(w)).map((w) => (w.length > 3 && w.endsWith('s') ? w.slice(0, -1) : w));
}

/** The stub reranker's relevance of `document` to `query`: the share of the query's distinct words it contains (0…1). */
export function stubRerankScore(query: string, document: string): number {
  const q = new Set(stubWords(query));
  if (!q.size) return 0;
  const d = new Set(stubWords(document));
  let found = 0;
  for (const w of q) if (d.has(w)) found++;
  return found / q.size;
}

export async function startOpenAiStub(initial: StubBehaviour = {}): Promise<OpenAiStub> {
  let behaviour: StubBehaviour = { ...initial };
  let embeddingBehaviour: EmbeddingBehaviour = {};
  const embeddingQueue: EmbeddingBehaviour[] = [];
  const embeddingRequests: EmbeddingRequest[] = [];
  let rerankBehaviour: RerankBehaviour = {};
  const rerankQueue: RerankBehaviour[] = [];
  const rerankRequests: RerankRequest[] = [];
  // bumped by reset(): an embedding or rerank answer still delayed then is not recorded into the next test
  let generation = 0;
  const queue: StubBehaviour[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let closedResolve!: () => void;
      const rec: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization ?? null,
        body: undefined,
        receivedAt: performance.now(),
        aborted: false,
        finished: false,
        closed: new Promise<void>((r) => (closedResolve = r)),
      };
      try {
        rec.body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      } catch {
        rec.body = Buffer.concat(chunks).toString('utf8');
      }
      if (req.method === 'POST' && /\/embeddings$/.test((req.url ?? '').split('?')[0])) {
        void answerEmbeddings(res, rec, embeddingQueue.shift() ?? embeddingBehaviour).catch(() => res.destroy());
        return;
      }
      if (req.method === 'POST' && /\/rerank$/.test((req.url ?? '').split('?')[0])) {
        void answerRerank(res, rec, rerankQueue.shift() ?? rerankBehaviour).catch(() => res.destroy());
        return;
      }
      requests.push(rec);
      res.on('close', () => {
        if (!rec.finished) rec.aborted = true;
        closedResolve();
      });
      const b = queue.shift() ?? behaviour;
      void answer(req, res, rec, b).catch(() => res.destroy());
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const gone = (res: http.ServerResponse) => res.destroyed || res.writableEnded;
  const sleep = (ms: number, res: http.ServerResponse) =>
    new Promise<void>((resolve) => {
      if (!ms) return resolve();
      const onClose = () => {
        clearTimeout(t);
        resolve();
      };
      // one listener per pause, removed when the pause ends (long answers pause hundreds of times)
      const t = setTimeout(() => {
        res.off('close', onClose);
        resolve();
      }, ms);
      res.once('close', onClose);
    });
  const json = (res: http.ServerResponse, rec: RecordedRequest, status: number, body: unknown) => {
    rec.finished = true;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  async function answerEmbeddings(res: http.ServerResponse, rec: RecordedRequest, b: EmbeddingBehaviour): Promise<void> {
    const body = rec.body as { model?: unknown; input?: unknown } | null;
    const input = Array.isArray(body?.input) ? body.input.map(String) : typeof body?.input === 'string' ? [body.input] : [];
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the stub records whatever model value the client sent
    const model = String(body?.model ?? '');
    const since = generation;
    const record = (status: number): void => {
      if (since === generation) embeddingRequests.push({ model, input, authorization: rec.authorization, status });
    };
    await sleep(b.delayMs ?? 0, res);
    if (gone(res)) return record(0);
    if (b.drop) {
      record(0);
      res.destroy();
      return;
    }
    if (b.requireKey !== undefined && rec.authorization !== `Bearer ${b.requireKey}`) {
      record(401);
      return json(res, rec, 401, {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    }
    if (b.models && !b.models.includes(model)) {
      record(404);
      return json(res, rec, 404, {
        error: { message: `The model \`${model}\` does not exist`, type: 'invalid_request_error', code: 'model_not_found' },
      });
    }
    const status = b.status ?? 200;
    if (status < 200 || status >= 300) {
      record(status);
      return json(res, rec, status, b.errorBody ?? { error: { message: `stub embeddings failure ${status}`, type: 'server_error' } });
    }
    if (!input.length) {
      record(400);
      return json(res, rec, 400, { error: { message: 'input must be a non-empty list', type: 'invalid_request_error' } });
    }
    record(200);
    const tokens = input.reduce((n, t) => n + estimateTokens(t), 0);
    // listed last to first, as some servers do: clients must place vectors by `index`
    const data = input
      .map((text, index) => ({ object: 'embedding', index, embedding: stubEmbedding(text, b.dims ?? 64, b.synonyms ?? [], model) }))
      .reverse();
    return json(res, rec, 200, { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }

  async function answerRerank(res: http.ServerResponse, rec: RecordedRequest, b: RerankBehaviour): Promise<void> {
    const body = rec.body as { model?: unknown; query?: unknown; documents?: unknown; texts?: unknown; top_n?: unknown } | null;
    const list = b.native ? body?.texts : body?.documents;
    const documents = Array.isArray(list) ? list.map(String) : [];
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the stub records whatever values the client sent
    const model = String(body?.model ?? '');
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- as above
    const query = String(body?.query ?? '');
    const topN = typeof body?.top_n === 'number' ? body.top_n : null;
    const since = generation;
    const record = (status: number): void => {
      if (since === generation) rerankRequests.push({ model, query, documents, topN, authorization: rec.authorization, status });
    };
    await sleep(b.delayMs ?? 0, res);
    if (gone(res)) return record(0);
    if (b.drop) {
      record(0);
      res.destroy();
      return;
    }
    if (b.requireKey !== undefined && rec.authorization !== `Bearer ${b.requireKey}`) {
      record(401);
      return json(res, rec, 401, {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    }
    if (b.native && !Array.isArray(body?.texts)) {
      record(422);
      res.writeHead(422, { 'content-type': 'text/plain' });
      res.end('Failed to deserialize the JSON body into the target type: missing field `texts` at line 1 column 80');
      return;
    }
    if (!b.native && b.models && !b.models.includes(model)) {
      record(404);
      return json(res, rec, 404, {
        error: { message: `The model \`${model}\` does not exist`, type: 'invalid_request_error', code: 'model_not_found' },
      });
    }
    const status = b.status ?? 200;
    if (status < 200 || status >= 300) {
      record(status);
      return json(res, rec, status, b.errorBody ?? { error: { message: `stub rerank failure ${status}`, type: 'server_error' } });
    }
    if (!query || !documents.length) {
      record(400);
      return json(res, rec, 400, { error: { message: 'query and documents are required', type: 'invalid_request_error' } });
    }
    record(200);
    const scored = documents
      .map((d, index) => ({ index, score: stubRerankScore(query, d) }))
      .sort((x, y) => y.score - x.score || x.index - y.index);
    if (b.native) return json(res, rec, 200, scored);
    const results = scored.slice(0, topN ?? scored.length).map((r) => ({ index: r.index, relevance_score: r.score }));
    const tokens = documents.reduce((n, d) => n + estimateTokens(d), estimateTokens(query));
    return json(res, rec, 200, { id: `rerank-${Math.random().toString(36).slice(2)}`, model, results, usage: { total_tokens: tokens } });
  }

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, rec: RecordedRequest, b: StubBehaviour): Promise<void> {
    if (req.method !== 'POST' || !/\/chat\/completions$/.test((req.url ?? '').split('?')[0])) {
      return json(res, rec, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'not_found' } });
    }
    await sleep(b.headersDelayMs ?? 0, res);
    if (gone(res)) return;
    if (b.hang === 'headers') return; // never answer; the socket stays open until the client leaves
    if (b.requireKey !== undefined && rec.authorization !== `Bearer ${b.requireKey}`) {
      return json(res, rec, 401, {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    }
    const body = rec.body as { model?: string; stream?: boolean } | null;
    if (b.models && !b.models.includes(String(body?.model))) {
      return json(res, rec, 404, {
        error: { message: `The model \`${body?.model}\` does not exist`, type: 'invalid_request_error', code: 'model_not_found' },
      });
    }
    const status = b.status ?? 200;
    if (status < 200 || status >= 300) {
      return json(res, rec, status, b.errorBody ?? { error: { message: `stub failure ${status}`, type: 'server_error' } });
    }
    const deltas = b.deltas ?? DEFAULT_DELTAS;
    const text = b.content ?? deltas.join('');
    const prompt = JSON.stringify((rec.body as { messages?: unknown })?.messages ?? '');
    const usage =
      typeof b.usage === 'object'
        ? b.usage
        : {
            prompt_tokens: estimateTokens(prompt),
            completion_tokens: estimateTokens(text),
            total_tokens: estimateTokens(prompt) + estimateTokens(text),
          };
    const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
    const model = body?.model ?? 'stub';

    if (!body?.stream) {
      return json(res, rec, status, {
        id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        ...(b.usage === false ? {} : { usage }),
      });
    }

    res.writeHead(status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    const send = (data: unknown) => res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      send({
        id,
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      });

    await sleep(b.ttftMs ?? 0, res);
    if (gone(res)) return;
    chunk({ role: 'assistant', content: '' });
    for (let i = 0; i < deltas.length; i++) {
      if (b.failAfter === i) {
        // the connection drops mid-answer, after what was written has left
        await new Promise<void>((resolve) => res.write('', () => resolve()));
        await sleep(20, res);
        res.destroy();
        return;
      }
      if (b.errorEventAfter === i) {
        send({ error: { message: 'stub: the model crashed mid-stream', type: 'server_error' } });
        rec.finished = true;
        res.end();
        return;
      }
      if (b.hang === 'body' && (b.hangAfter ?? 0) === i) return;
      if (i > 0) await sleep(b.deltaDelayMs ?? 0, res);
      if (gone(res)) return;
      chunk({ content: deltas[i] });
      if (i === 0) rec.firstDeltaAt = performance.now();
    }
    if (b.hang === 'body' && (b.hangAfter ?? 0) >= deltas.length) return;
    if (b.omitDone) {
      rec.finished = true;
      res.end();
      return;
    }
    chunk({}, 'stop');
    if (b.usage !== false) send({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [], usage });
    send('[DONE]');
    rec.finished = true;
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    embeddingRequests,
    setEmbeddings: (b) => {
      embeddingBehaviour = { ...b };
    },
    onceEmbeddings: (b) => {
      embeddingQueue.push({ ...b });
    },
    rerankRequests,
    setRerank: (b) => {
      rerankBehaviour = { ...b };
    },
    onceRerank: (b) => {
      rerankQueue.push({ ...b });
    },
    embed: (text, model = '') => stubEmbedding(text, embeddingBehaviour.dims ?? 64, embeddingBehaviour.synonyms ?? [], model),
    set: (b) => {
      behaviour = { ...b };
    },
    once: (b) => {
      queue.push({ ...b });
    },
    reset: () => {
      generation += 1;
      behaviour = { ...initial };
      queue.length = 0;
      requests.length = 0;
      embeddingBehaviour = {};
      embeddingQueue.length = 0;
      embeddingRequests.length = 0;
      rerankBehaviour = {};
      rerankQueue.length = 0;
      rerankRequests.length = 0;
    },
    last: () => {
      const r = requests[requests.length - 1];
      if (!r) throw new Error('the stub has received no request');
      return r;
    },
    waitFor: async (predicate, timeoutMs = 5000) => {
      const end = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > end) throw new Error('openai-stub: condition not met in time');
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
