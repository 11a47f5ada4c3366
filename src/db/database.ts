import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { startEmbeddedPostgres } from './embedded';
import { createOrm, migrate } from './orm';

export interface Database {
  url: string;
  orm: MikroORM;
  /** The migrations this open applied. */
  applied: string[];
  /** Closes the pool and stops the embedded PostgreSQL when this process started it. */
  close(): Promise<void>;
}

/**
 * DATABASE_URL when set, else the embedded PostgreSQL in DATA_DIR; pending migrations are applied.
 * On the embedded PostgreSQL, migrations run as its superuser on a connection of their own, and the
 * returned pool (every request) connects as the application role, which is not a superuser.
 */
export async function openDatabase(config: Config, logger: Logger, opts: { migrate?: boolean; poolMax?: number } = {}): Promise<Database> {
  let url = config.databaseUrl;
  let stopEmbedded: (() => Promise<void>) | null = null;
  let migrationUrl: string | null = null;
  if (!url) {
    logger.info({ dataDir: config.dataDir }, 'starting embedded PostgreSQL');
    const db = await startEmbeddedPostgres({
      dataDir: config.dataDir,
      port: config.embeddedPgPort,
      sharedBuffersMb: config.embeddedPgSharedBuffersMb ?? undefined,
      log: (m) => logger.debug({ pg: m }, 'postgres'),
      warn: (m) => logger.warn({ dataDir: config.dataDir }, m),
    });
    logger.info({ port: db.port }, 'embedded PostgreSQL on 127.0.0.1');
    url = db.appUrl;
    migrationUrl = db.url;
    stopEmbedded = () => db.stop();
  }
  const orm = await createOrm(url, { poolMax: opts.poolMax });
  let applied: string[] = [];
  if (opts.migrate !== false) {
    const owner = migrationUrl ? await createOrm(migrationUrl, { poolMax: 1 }) : null;
    try {
      applied = await migrate(owner ?? orm);
      if (applied.length) logger.info({ applied }, 'migrations applied');
    } finally {
      await owner?.close(true);
    }
  }
  return {
    url,
    orm,
    applied,
    close: async () => {
      await orm.close(true);
      if (stopEmbedded) await stopEmbedded();
    },
  };
}

/** A pool opened elsewhere (a test's cloned database) as a Database: close() ends the pool, then runs `after`. */
export function existingDatabase(url: string, orm: MikroORM, after?: () => Promise<void>): Database {
  return {
    url,
    orm,
    applied: [],
    close: async () => {
      await orm.close(true);
      await after?.();
    },
  };
}
