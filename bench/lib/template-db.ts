import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { createOrm, migrate } from '../../src/db/orm';
import { freePort } from '../../src/util/net';

/**
 * Runs `fn` with a fresh embedded PostgreSQL holding a migrated template database, which
 * createTestApp (test/support/test-app.ts) clones for each app it starts; stops it afterwards.
 */
export async function withTemplateDatabase<T>(fn: () => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docqa-tune-'));
  const db = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), database: 'docqa_template' });
  const saved = process.env.TEST_DATABASE_ADMIN_URL;
  try {
    const orm = await createOrm(db.url);
    await migrate(orm);
    await orm.close(true);
    const c = new pg.Client({ connectionString: db.adminUrl });
    await c.connect();
    await c.query('alter database docqa_template with is_template true');
    await c.end();
    // createTestApp clones its database from this template
    process.env.TEST_DATABASE_ADMIN_URL = db.adminUrl;
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.TEST_DATABASE_ADMIN_URL;
    else process.env.TEST_DATABASE_ADMIN_URL = saved;
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
