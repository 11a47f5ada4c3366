import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../support/processes';

jest.setTimeout(180_000);

/**
 * Opens the database as the server does (`openDatabase`, built code, in a process of its own: the
 * embedded PostgreSQL's binaries load outside Jest) and reports, as JSON, who the pool is and what
 * it may do.
 */
const PROBE = `
const { loadConfig } = require('./dist/src/config');
const { openDatabase } = require('./dist/src/db/database');
const { query } = require('./dist/src/db/sql');
const { createLogger } = require('./dist/src/logger');
(async () => {
  const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32), DATA_DIR: process.argv[1] });
  const db = await openDatabase(config, createLogger('silent'), { poolMax: 2 });
  const em = db.orm.em.fork();
  const out = { applied: db.applied.length, urlUser: new URL(db.url).username, refused: {} };
  try {
    [out.me] = await query(em, 'select current_user as user, (select rolsuper from pg_roles where rolname = current_user) as super');
    const key = 'role-probe-' + Date.now();
    await query(em, 'insert into settings (key, value) values (?, ?)', [key, '1']);
    out.rowWritten = (await query(em, 'select key from settings where key = ?', [key])).length === 1;
    for (const sql of ['create table app_role_probe (id int)', 'alter table users add column probe int',
                       "select pg_read_file('postgresql.conf')", "copy (select 1) to program 'true'"]) {
      try { await query(em, sql); out.refused[sql] = 'allowed'; } catch (e) { out.refused[sql] = e.message; }
    }
  } finally {
    await db.close();
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
`;

/** Issue 38 part 4: requests reach the embedded PostgreSQL as a role that is not a superuser; migrations may use the superuser. */
describe('the embedded PostgreSQL: migrations as the superuser, requests as the application role', () => {
  it('the pool connects as a non-superuser that reads and writes rows but cannot change the schema, on a first start and a restart', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'docqa-role-'));
    try {
      for (const start of ['first', 'restart']) {
        const { stdout } = await promisify(execFile)(process.execPath, ['-e', PROBE, dataDir], { cwd: ROOT, timeout: 120_000 });
        const out = JSON.parse(stdout);
        // the first start applied every migration (as the superuser); the restart has none to apply
        expect(out.applied > 0).toBe(start === 'first');
        expect(out.urlUser).toBe('docqa_app');
        expect(out.me).toEqual({ user: 'docqa_app', super: false });
        expect(out.rowWritten).toBe(true);
        for (const [sql, outcome] of Object.entries(out.refused))
          expect(`${sql}: ${outcome as string}`).toMatch(/permission denied|must be superuser|must be owner|privilege/i);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
