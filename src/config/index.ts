import os from 'node:os';
import path from 'node:path';
import { ingestLimits, type ParseLimits, type PoolLimits } from './limits';
import { bool, ConfigError, type Env, int, list, LOG_LEVELS, secret, str, trustProxy, url } from './env';
import { searchEnv, type SearchEnv } from './models';
import { oidcConfig, type OidcConfig } from './oidc';

export { ConfigError, databaseServerEnv, processEnv } from './env';
export type { EmbeddingEnv, RerankEnv } from './models';
export type { OidcConfig } from './oidc';

/** Everything the service reads from its environment, parsed and validated once. */
export interface Config extends SearchEnv {
  nodeEnv: string;
  port: number;
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  /** Preferred port of the embedded PostgreSQL; 0 = a free port chosen at each start. */
  embeddedPgPort: number;
  embeddedPgSharedBuffersMb: number | null; // null: an eighth of the memory, 128 MB–2 GB (src/db/embedded.ts)
  /** HS256 secret; null outside production = the one generated once into the database. */
  jwtSecret: string | null;
  /** Key-encryption key of provider API keys; null outside production = generated into the database. */
  encryptionKey: string | null;
  llmBaseUrl: string | null;
  llmApiKey: string;
  llmModel: string | null;
  searchApiKey: string | null;
  searchApiUrl: string;
  logLevel: string;
  /** `pretty` on a terminal outside production unless LOG_FORMAT=json; JSON lines otherwise. */
  logFormat: 'json' | 'pretty';
  maxUploadMb: number;
  maxBodyKb: number;
  loginRateLimitPerIp: number;
  loginRateLimitPerAccount: number;
  /** Failed logins of one account from all addresses together before new addresses wait (decision 0009). */
  loginRateLimitAccountTotal: number;
  /** Requests one key may make a minute, counted on every node together (0: no limit). */
  keyRateLimitPerMinute: number;
  corsOrigins: string[];
  /** Which proxies' X-Forwarded-For to believe: a hop count (0 = none) or trusted addresses/CIDRs. */
  trustProxy: number | string[];
  /** Hosts/CIDRs that outgoing provider and search calls may reach even though they are private. */
  privateHostAllowList: string[];
  /** When false, provider tests and search calls to private/loopback addresses are refused. */
  allowPrivateNetwork: boolean;
  graphqlIntrospection: boolean;
  graphqlPlayground: boolean;
  graphqlMaxDepth: number;
  graphqlMaxCost: number;
  graphqlMaxAliases: number;
  graphqlMaxRootFields: number;
  /** Largest graphql-ws frame before `connection_init` is accepted (after it: MAX_BODY_KB). */
  graphqlWsInitMaxKb: number;
  /** Live streams (chat, subscriptions): operations per graphql-ws connection, streams per user per node (0: no cap). */
  live: { maxPerConnection: number; maxPerUser: number };
  /** Entries in the automatic persisted query cache (0 turns APQ off). */
  graphqlApqCacheSize: number;
  /** Repeated queries run compiled by graphql-jit (false: every operation on graphql-js). */
  graphqlJit: boolean;
  /** How many times a query document is seen before it is compiled. */
  graphqlJitAfter: number;
  /** The API reference (/api/docs) and its OpenAPI document (/api/openapi.json). */
  apiDocs: boolean;
  /** The web app at `/` (sign in, upload, ask); WEB_APP=false turns it off. */
  webApp: boolean;
  /** Prometheus metrics: off, on a port of their own, or on the main port (behind `token` when set). */
  metrics: { enabled: boolean; port: number | null; token: string | null };
  runWorkers: boolean;
  workerConcurrency: number;
  /** Ingestion job retries after the first attempt (exponential backoff from ingestRetryDelaySeconds). */
  ingestRetryLimit: number;
  ingestRetryDelaySeconds: number;
  /** A running ingestion job older than this is taken as dead (its worker crashed) and retried. */
  ingestJobTimeoutSeconds: number;
  /** How often the job queue looks for such expired jobs. */
  jobMaintenanceSeconds: number;
  /** How often an idle ingestion worker polls for work. */
  jobPollingSeconds: number;
  /** What one document may expand to while it is parsed. */
  parseLimits: ParseLimits;
  /** The parser pool: threads, heap per thread, wall-clock limit per document. */
  parserPool: PoolLimits;
  /** Where multipart uploads are streamed to before they are stored (owned by the service). */
  uploadTmpDir: string;
  /** Upload requests running at once, per user and in the whole process (429 beyond). */
  uploadConcurrencyPerUser: number;
  uploadConcurrency: number;
  searchLanguage: string;
  upstreamTimeoutMs: number;
  /** Single sign-on; null when OIDC_ISSUER is unset. */
  oidc: OidcConfig | null;
  /** PASSWORD_LOGIN=false: only the superadmin signs in with a password. */
  passwordLogin: boolean;
  /** How long an ended chat stream can still be replayed (GET /chat/messages/:messageId/stream). */
  chatStreamRetentionMinutes: number;
  shutdownGraceMs: number;
  bootstrap: {
    superadminEmail?: string;
    superadminPassword?: string;
    superadminName?: string;
    ceoEmail?: string;
    ceoPassword?: string;
    ceoName?: string;
  };
}

/**
 * The configuration, from `env` (the process environment by default: this module is the only reader
 * of process.env). `defaults.logLevel` is the level when LOG_LEVEL is unset (command-line tools
 * stay quiet).
 */
export function loadConfig(env: Env = process.env, defaults: { logLevel?: string } = {}): Config {
  const nodeEnv = str(env, 'NODE_ENV') ?? 'development';
  const production = nodeEnv === 'production';
  const dataDir = path.resolve(str(env, 'DATA_DIR') ?? './.data');
  const databaseUrl = url(env, 'DATABASE_URL') ?? null;
  if (databaseUrl && !/^postgres(ql)?:/.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must be a postgres:// URL`);
  }

  // unset outside production: generated once into the database (see DeploymentSecrets)
  const jwtSecret = secret(env, 'JWT_SECRET', production);
  // optional even in production: unset, it is generated once into the database (a warning says so),
  // so a deployment that sets only the spec's JWT_SECRET still starts and can rotate it
  const encryptionKey = secret(env, 'ENCRYPTION_KEY', false);

  const logLevel = str(env, 'LOG_LEVEL') ?? defaults.logLevel ?? (nodeEnv === 'test' ? 'silent' : 'info');
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }

  const logFormatRaw = str(env, 'LOG_FORMAT') ?? 'auto';
  if (!['auto', 'json', 'pretty'].includes(logFormatRaw)) {
    throw new ConfigError(`LOG_FORMAT must be one of auto, json, pretty, got "${logFormatRaw}"`);
  }
  // production always logs JSON lines; elsewhere a terminal gets readable lines unless told otherwise
  const logFormat = production || logFormatRaw === 'json' || (logFormatRaw === 'auto' && !process.stdout.isTTY) ? 'json' : 'pretty';

  const searchLanguage = str(env, 'SEARCH_LANGUAGE') ?? 'english';
  if (!/^[a-z_]+$/.test(searchLanguage)) throw new ConfigError(`SEARCH_LANGUAGE must be a PostgreSQL text search configuration name`);

  const workerConcurrency = int(env, 'WORKER_CONCURRENCY', 2, 1, 64);

  const port = int(env, 'PORT', 3000, 0, 65535);
  const metricsPort = str(env, 'METRICS_PORT') === undefined ? null : int(env, 'METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port) throw new ConfigError('METRICS_PORT must differ from PORT');
  const metricsToken = str(env, 'METRICS_TOKEN') ?? null;
  if (metricsToken !== null && (metricsToken.length < 16 || /\s/.test(metricsToken))) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 characters without spaces');
  }

  return {
    nodeEnv,
    port,
    host: str(env, 'HOST') ?? '0.0.0.0',
    databaseUrl,
    dataDir,
    embeddedPgPort: int(env, 'EMBEDDED_PG_PORT', 0, 0, 65535),
    embeddedPgSharedBuffersMb: str(env, 'EMBEDDED_PG_SHARED_BUFFERS_MB')
      ? int(env, 'EMBEDDED_PG_SHARED_BUFFERS_MB', 128, 16, 1 << 20)
      : null,
    jwtSecret,
    encryptionKey,
    llmBaseUrl: url(env, 'LLM_BASE_URL') ?? null,
    llmApiKey: str(env, 'LLM_API_KEY') ?? '',
    llmModel: str(env, 'LLM_MODEL') ?? null,
    searchApiKey: str(env, 'SEARCH_API_KEY') ?? null,
    searchApiUrl: url(env, 'SEARCH_API_URL') ?? 'https://api.tavily.com',
    logLevel,
    logFormat,
    maxUploadMb: int(env, 'MAX_UPLOAD_MB', 50, 1, 2000),
    maxBodyKb: int(env, 'MAX_BODY_KB', 1024, 1, 102400),
    loginRateLimitPerIp: int(env, 'LOGIN_RATE_LIMIT_PER_IP', 30, 0, 1_000_000),
    loginRateLimitPerAccount: int(env, 'LOGIN_RATE_LIMIT_PER_ACCOUNT', 10, 0, 1_000_000),
    loginRateLimitAccountTotal: int(env, 'LOGIN_RATE_LIMIT_ACCOUNT_TOTAL', 20, 0, 1_000_000),
    keyRateLimitPerMinute: int(env, 'KEY_RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000),
    corsOrigins: list(env, 'CORS_ORIGINS'),
    trustProxy: trustProxy(env),
    privateHostAllowList: list(env, 'PRIVATE_HOST_ALLOWLIST'),
    allowPrivateNetwork: bool(env, 'ALLOW_PRIVATE_NETWORK', !production),
    graphqlIntrospection: bool(env, 'GRAPHQL_INTROSPECTION', !production),
    graphqlPlayground: bool(env, 'GRAPHQL_PLAYGROUND', !production),
    graphqlMaxDepth: int(env, 'GRAPHQL_MAX_DEPTH', 10, 1, 100),
    graphqlMaxCost: int(env, 'GRAPHQL_MAX_COST', 5000, 1, 10_000_000),
    graphqlMaxAliases: int(env, 'GRAPHQL_MAX_ALIASES', 30, 0, 100_000),
    graphqlMaxRootFields: int(env, 'GRAPHQL_MAX_ROOT_FIELDS', 20, 1, 100_000),
    graphqlWsInitMaxKb: int(env, 'GRAPHQL_WS_INIT_MAX_KB', 16, 1, 1024),
    live: {
      maxPerConnection: int(env, 'GRAPHQL_WS_MAX_OPERATIONS', 20, 0, 10_000),
      maxPerUser: int(env, 'LIVE_STREAMS_PER_USER', 20, 0, 100_000),
    },
    graphqlApqCacheSize: int(env, 'GRAPHQL_APQ_CACHE_SIZE', 1000, 0, 1_000_000),
    graphqlJit: bool(env, 'GRAPHQL_JIT', true),
    graphqlJitAfter: int(env, 'GRAPHQL_JIT_AFTER', 2, 1, 1_000_000),
    apiDocs: bool(env, 'API_DOCS', !production),
    webApp: bool(env, 'WEB_APP', true),
    // production exposes metrics only when the operator chose where (a port) or how (a token)
    metrics: { enabled: metricsPort !== null || metricsToken !== null || !production, port: metricsPort, token: metricsToken },
    runWorkers: bool(env, 'RUN_WORKERS', true),
    workerConcurrency,
    ingestRetryLimit: int(env, 'INGEST_RETRY_LIMIT', 3, 0, 100),
    ingestRetryDelaySeconds: int(env, 'INGEST_RETRY_DELAY_SECONDS', 5, 0, 3600),
    ingestJobTimeoutSeconds: int(env, 'INGEST_JOB_TIMEOUT_SECONDS', 300, 1, 86_400),
    jobMaintenanceSeconds: int(env, 'JOB_MAINTENANCE_SECONDS', 30, 1, 3600),
    jobPollingSeconds: int(env, 'JOB_POLLING_SECONDS', 1, 1, 60),
    ...ingestLimits(env, workerConcurrency),
    uploadTmpDir: path.resolve(str(env, 'UPLOAD_TMP_DIR') ?? path.join(os.tmpdir(), 'docqa-uploads')),
    uploadConcurrencyPerUser: int(env, 'UPLOAD_CONCURRENCY_PER_USER', 2, 1, 1000),
    uploadConcurrency: int(env, 'UPLOAD_CONCURRENCY', 8, 1, 10_000),
    searchLanguage,
    ...searchEnv(env),
    upstreamTimeoutMs: int(env, 'UPSTREAM_TIMEOUT_MS', 120_000, 100, 3_600_000),
    oidc: oidcConfig(env),
    passwordLogin: bool(env, 'PASSWORD_LOGIN', true),
    chatStreamRetentionMinutes: int(env, 'CHAT_STREAM_RETENTION_MINUTES', 60, 1, 43_200),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    bootstrap: {
      superadminEmail: str(env, 'BOOTSTRAP_SUPERADMIN_EMAIL'),
      superadminPassword: str(env, 'BOOTSTRAP_SUPERADMIN_PASSWORD'),
      superadminName: str(env, 'BOOTSTRAP_SUPERADMIN_NAME'),
      ceoEmail: str(env, 'BOOTSTRAP_CEO_EMAIL'),
      ceoPassword: str(env, 'BOOTSTRAP_CEO_PASSWORD'),
      ceoName: str(env, 'BOOTSTRAP_CEO_NAME'),
    },
  };
}
