import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppHandle } from '../../src/app';
import { compose } from '../../src/composition';
import { existingDatabase } from '../../src/db/database';
import { Config, loadConfig } from '../../src/config';
import { createOrm } from '../../src/db/orm';
import { createLogger, Logger } from '../../src/logger';
import { createMetrics, Metrics } from '../../src/observability/metrics';
import type { Services } from '../../src/services';
import { createTestDatabase } from './test-db';

export interface TestApp {
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  config: Config;
  orm: MikroORM;
  services: Services;
  logger: Logger;
  app: AppHandle;
  dbUrl: string;
  /** Aborts the services' shutdown signal (simulates SIGTERM for streams). */
  shutdownController: AbortController;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Start ingestion workers (default false; tests that ingest turn them on). */
  workers?: boolean;
  logger?: Logger;
  /** The Prometheus registry the services and app use (default: a fresh one without process metrics). */
  metrics?: Metrics;
  /** A second node: the database of another test app (which drops it), instead of a fresh one. */
  sameDatabaseAs?: TestApp;
}

/** A real server on a random port over a fresh database cloned from the migrated template. */
export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const db = opts.sameDatabaseAs ? { url: opts.sameDatabaseAs.dbUrl, drop: () => Promise.resolve() } : await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'test-secret-test-secret-test-secret',
    DATABASE_URL: db.url,
    LOG_LEVEL: 'silent',
    LOGIN_RATE_LIMIT_PER_IP: '0',
    LOGIN_RATE_LIMIT_PER_ACCOUNT: '0',
    LOGIN_RATE_LIMIT_ACCOUNT_TOTAL: '0',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: '/tmp/docqa-test-data',
    // every GraphQL query of the suites runs compiled by graphql-jit, from its first sight
    GRAPHQL_JIT_AFTER: '1',
    // close() ends open connections at once (a test that measures the grace sets it)
    SHUTDOWN_GRACE_MS: '0',
    ...opts.env,
  });
  const logger = opts.logger ?? createLogger(config.logLevel);
  const orm = await createOrm(db.url, { poolMax: 10 });
  const database = existingDatabase(db.url, orm, () => db.drop());
  const server = await compose(config, {
    role: 'server',
    overrides: { logger, database, metrics: opts.metrics ?? createMetrics(), workers: opts.workers ?? false, firstRun: false },
  });
  await server.start();
  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    config,
    orm,
    services: server.services,
    logger,
    app: server.app!,
    dbUrl: db.url,
    shutdownController: server.shutdown,
    close: () => server.stop(),
  };
}
