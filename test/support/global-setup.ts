import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MetadataStorage } from '@mikro-orm/core';
import pg from 'pg';
import { EmbeddedDbError, startEmbeddedPostgres } from '../../src/db/embedded';
import { createOrm, migrate } from '../../src/db/orm';
import { freePort } from '../../src/util/net';

export const TEMPLATE_DB = 'docqa_template';

/**
 * Starts one real PostgreSQL for the whole run (own temp dir, own port) and prepares a migrated
 * template database; every test file clones it into a database of its own.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_DATABASE_ADMIN_URL) {
    // an outer harness provides the server (scripts/run-each-test.mjs); importing MikroORM here still
    // made the store below, which a single file run in band would meet
    forgetOrmMetadata();
    return;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docqa-test-'));
  const port = await freePort();
  let db: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
  try {
    db = await startEmbeddedPostgres({ dataDir: dir, port, database: TEMPLATE_DB });
  } catch (e) {
    // one line naming cause and fix, not a stack trace
    process.stderr.write(`\n${e instanceof EmbeddedDbError ? e.message : `embedded PostgreSQL: ${String(e)}`}\n`);
    process.exit(1);
  }
  const orm = await createOrm(db.url);
  await migrate(orm);
  await orm.close(true);
  forgetOrmMetadata();
  // no connections may remain on a template
  const c = new pg.Client({ connectionString: db.adminUrl });
  await c.connect();
  await c.query(`alter database ${TEMPLATE_DB} with is_template true`);
  await c.end();
  process.env.TEST_DATABASE_ADMIN_URL = db.adminUrl;
  process.env.TEST_PG_DIR = dir;
  (globalThis as Record<string, unknown>).__DOCQA_PG__ = db;
}

/**
 * MikroORM keeps entity metadata in a process-global store; built here (outside the test realm) it
 * breaks MikroORM.init inside tests (mikro-orm#3783), so drop it ...and drop the store itself: with
 * --runInBand the test files run in this process and see this global, so they would all share one
 * store and the second file would meet the first file's metadata (Maps from another realm:
 * "Map.prototype.set called on incompatible receiver").
 */
function forgetOrmMetadata(): void {
  MetadataStorage.clear();
  delete (globalThis as Record<string, unknown>)['mikro-orm-metadata'];
}
