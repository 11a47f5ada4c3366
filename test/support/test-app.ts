import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AddressInfo } from 'node:net';
import { createApp, AppHandle } from '../../src/app';
import { Config, loadConfig } from '../../src/config';
import { createOrm } from '../../src/db/orm';
import { createLogger, Logger } from '../../src/logger';
import type { Metrics } from '../../src/observability/metrics';
import { createServices, Services } from '../../src/services';
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
}

/** A real server on a random port over a fresh database cloned from the migrated template. */
export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase();
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
    ...opts.env,
  });
  const logger = opts.logger ?? createLogger(config.logLevel);
  const orm = await createOrm(db.url, { poolMax: 10 });
  const shutdownController = new AbortController();
  const services = createServices({ orm, config, logger, shutdown: shutdownController.signal, metrics: opts.metrics });
  await services.start({ workers: opts.workers ?? false });
  const app = await createApp({ config, orm, services, logger });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', () => resolve()));
  const port = (app.server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    config,
    orm,
    services,
    logger,
    app,
    dbUrl: db.url,
    shutdownController,
    close: async () => {
      shutdownController.abort();
      await app.close();
      app.server.closeAllConnections();
      await new Promise<void>((resolve) => app.server.close(() => resolve()));
      await services.stop();
      await orm.close(true);
      await db.drop();
    },
  };
}
