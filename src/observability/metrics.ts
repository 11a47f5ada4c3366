import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's Prometheus instruments, on a registry of their own (no prom-client globals, so
 * tests and several servers in one process never share series). Every label value comes from a
 * fixed set or a bounded one (route templates, capped operation names and provider slugs): never
 * user input, ids, e-mails or raw paths.
 */

/** Latency buckets (seconds) for requests and pipeline stages. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Buckets for whole chat answers and ingestion jobs, which run for seconds to minutes. */
const LONG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The label an unbounded name collapses to once its cap is reached. */
export const OTHER = 'other';

/**
 * Keeps a label's distinct values bounded: a name that fits `pattern` is kept until `max`
 * distinct names have been seen; later new names (and anything not fitting) become `other`.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(
    private readonly max: number,
    private readonly pattern: RegExp,
  ) {}

  of(name: string): string {
    if (this.seen.has(name)) return name;
    if (!this.pattern.test(name) || this.seen.size >= this.max) return OTHER;
    this.seen.add(name);
    return name;
  }
}

/** Where /metrics reads values that live elsewhere (pools, the job queue), at scrape time. */
export interface MetricSources {
  /** Connections of each pool: in use, idle, and callers waiting for one. */
  pools?: () => Array<{ pool: string; inUse: number; idle: number; waiting: number }>;
  /** Jobs per queue and state. */
  queueDepth?: () => Promise<Array<{ queue: string; state: string; count: number }>>;
  /** Chunks without an embedding; null while embeddings do not exist. */
  embeddingBacklog?: () => Promise<number | null>;
}

export type LoginOutcome = 'success' | 'invalid_credentials' | 'rate_limited' | 'not_bootstrapped' | 'error';
export type IngestFailureReason =
  'unsupported' | 'no_text' | 'encrypted' | 'unreadable' | 'timeout' | 'interrupted' | 'error' | 'dead_letter';

export class Metrics {
  readonly registry = new Registry();
  private readonly sources: MetricSources = {};
  /** GraphQL operation names are chosen by clients: at most 100 distinct ones are kept. */
  readonly graphqlOperationNames = new BoundedLabel(100, /^[_A-Za-z][_0-9A-Za-z]{0,63}$/);
  /** Provider slugs are configured by administrators; bounded all the same. */
  readonly providerSlugs = new BoundedLabel(50, /^[a-z0-9][a-z0-9-]{0,63}$/);
  /** Error codes are ours and Apollo's; bounded in case a resolver throws something unexpected. */
  readonly errorCodes = new BoundedLabel(60, /^[A-Za-z_]{1,64}$/);

  readonly httpDuration = this.histogram(
    'docqa_http_request_duration_seconds',
    'HTTP request duration by method, route template and status (streams: until the stream ends)',
    ['method', 'route', 'status'],
  );
  readonly graphqlDuration = this.histogram(
    'docqa_graphql_operation_duration_seconds',
    'GraphQL operation duration by operation name (anonymous, unknown or other beyond the cap) and type',
    ['operation', 'type'],
  );
  readonly graphqlErrors = this.counter('docqa_graphql_errors_total', 'GraphQL errors by extensions.code', ['code']);
  readonly chatSources = this.histogram('docqa_chat_time_to_sources_seconds', 'From the chat request to the sources event, by mode', [
    'mode',
  ]);
  readonly chatFirstText = this.histogram(
    'docqa_chat_time_to_first_text_seconds',
    'From the chat request to the first text event, by mode',
    ['mode'],
    LONG_BUCKETS,
  );
  readonly chatDuration = this.histogram(
    'docqa_chat_duration_seconds',
    'Whole chat answers, by mode and outcome (done, error, aborted)',
    ['mode', 'outcome'],
    LONG_BUCKETS,
  );
  readonly chatTokens = this.counter('docqa_chat_tokens_total', 'Tokens of completed chat answers (prompt and answer), by mode', ['mode']);
  readonly chatOutcomes = this.counter(
    'docqa_chat_outcomes_total',
    'Chat streams by outcome (done, error, aborted) and error message (empty unless error)',
    ['outcome', 'error'],
  );
  readonly chatUpstreamErrors = this.counter(
    'docqa_chat_upstream_errors_total',
    'Failed upstream calls during chat, by provider slug (env: the LLM_BASE_URL fallback; web-search: the search API)',
    ['provider'],
  );
  readonly retrievalDuration = this.histogram(
    'docqa_retrieval_duration_seconds',
    'Retrieval for chat: documents (docs) or the web search (web, deep)',
    ['mode'],
  );
  readonly ingestJobDuration = this.histogram(
    'docqa_ingest_job_duration_seconds',
    'Ingestion attempts by outcome (ready, failed, retry)',
    ['outcome'],
    LONG_BUCKETS,
  );
  readonly ingestPages = this.counter(
    'docqa_ingest_pages_total',
    'Pages read by successful ingestion attempts (rate() gives pages per second)',
  );
  readonly ingestChunks = this.counter(
    'docqa_ingest_chunks_total',
    'Chunks indexed by successful ingestion attempts (rate() gives chunks per second)',
  );
  readonly ingestFailures = this.counter('docqa_ingest_failures_total', 'Failed ingestion attempts by reason', ['reason']);
  readonly loginAttempts = this.counter('docqa_login_attempts_total', 'Login attempts by outcome', ['outcome']);

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    const sources = this.sources;
    this.gauge(
      'docqa_db_pool_connections',
      'Database pool connections by pool (orm: the main pool, auth: per-request authentication) and state (in_use, idle, waiting: callers queued for one)',
      ['pool', 'state'],
      (g) => {
        for (const p of sources.pools?.() ?? []) {
          g.set({ pool: p.pool, state: 'in_use' }, p.inUse);
          g.set({ pool: p.pool, state: 'idle' }, p.idle);
          g.set({ pool: p.pool, state: 'waiting' }, p.waiting);
        }
      },
    );
    this.gauge('docqa_ingest_queue_jobs', 'Ingestion jobs in the queue (pg-boss) by queue and state', ['queue', 'state'], async (g) => {
      for (const r of (await sources.queueDepth?.()) ?? []) g.set({ queue: r.queue, state: r.state }, r.count);
    });
    this.gauge(
      'docqa_embedding_backlog_chunks',
      'Chunks without an embedding vector (0 while no chunk_embeddings table exists)',
      [],
      async (g) => {
        g.set((await sources.embeddingBacklog?.()) ?? 0);
      },
    );
    if (opts.defaultMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'docqa_' });
  }

  /** A histogram on this registry (request-sized buckets unless told). */
  private histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets = LATENCY_BUCKETS): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** A gauge read at scrape time: cleared, then set by `read` (a series whose source is gone disappears). */
  private gauge<L extends string>(name: string, help: string, labelNames: readonly L[], read: (g: Gauge<L>) => void | Promise<void>): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        await read(this);
      },
    });
  }

  /** Registers where scrape-time values come from (later calls add or replace sources). */
  watch(sources: MetricSources): void {
    Object.assign(this.sources, sources);
  }

  /** One finished HTTP request; `route` is a template (e.g. `/api/projects/:id`) or `unmatched`. */
  observeHttp(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method: HTTP_METHODS.has(method) ? method : OTHER, route, status: String(status) }, seconds);
  }

  /** The operation-name label: `anonymous`, `unknown` (never resolved) or a capped name. */
  graphqlOperation(name: string | null | undefined, resolved: boolean): string {
    if (!resolved) return 'unknown';
    return name ? this.graphqlOperationNames.of(name) : 'anonymous';
  }

  /** The provider label of a chat target: its slug, or `env` for the environment fallback. */
  provider(slug: string | null): string {
    return slug === null ? 'env' : this.providerSlugs.of(slug);
  }

  /** The text exposition of every series (the /metrics body). */
  async scrape(): Promise<string> {
    return this.registry.metrics();
  }
}

/** A registry with the service's instruments; `defaultMetrics` adds prom-client's process metrics. */
export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  return new Metrics(opts);
}
