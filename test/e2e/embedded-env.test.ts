import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Proc, startProcess } from '../support/processes';

jest.setTimeout(180_000);

/**
 * Issue 25 item 2: the embedded PostgreSQL (initdb and the server) starts with an allow-listed
 * environment, so none of the application's secrets sit in a process any SQL session can read.
 */
const SECRETS: Record<string, string> = {
  JWT_SECRET: 'jwt-secret-canary-0123456789',
  ENCRYPTION_KEY: 'encryption-key-canary-0123456789',
  LLM_API_KEY: 'llm-api-key-canary',
  EMBEDDING_API_KEY: 'embedding-api-key-canary',
  RERANK_API_KEY: 'rerank-api-key-canary',
  SEARCH_API_KEY: 'search-api-key-canary',
  METRICS_TOKEN: 'metrics-token-canary',
  BOOTSTRAP_SUPERADMIN_PASSWORD: 'bootstrap-password-canary',
  BOOTSTRAP_ADMIN_PASSWORD: 'bootstrap-admin-password-canary',
  DATABASE_URL_CANARY: 'postgres://canary:canary@example.invalid/db',
  SOME_FUTURE_SECRET: 'future-secret-canary',
};

let dir: string;
let proc: Proc | undefined;
afterAll(async () => {
  await proc?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const environ = (raw: Buffer): Map<string, string> =>
  new Map(
    raw
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );

// the child starts with the parent's secrets in its environment
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'docqa-envtest-'));
  proc = await startProcess(
    'dist/src/cli/embedded-pg.js',
    ['--data-dir', dir],
    { ...SECRETS, LANG: 'C.UTF-8', TZ: 'UTC' },
    /ready postgres:\/\/\S+\n/,
  );
});

it("no secret of the parent reaches the postgres child's environment (/proc/<pid>/environ, nor pg_read_binary_file)", async () => {
  const url = /ready (postgres:\/\/\S+)\n/.exec(proc!.output())![1];
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // the postmaster's pid, read by the server itself (first line of postmaster.pid in its data directory)
    const pidFile: string = (await c.query(`select pg_read_file('postmaster.pid') as f`)).rows[0].f;
    const pid = Number(pidFile.split('\n')[0]);
    expect(pid).toBeGreaterThan(0);
    const raw = readFileSync(`/proc/${pid}/environ`);
    const env = environ(raw);
    // what any superuser SQL session can read (the attack of the issue): the postmaster's environment
    // (a length is needed: /proc files report size 0)
    const fromSql = (await c.query(`select pg_read_binary_file('/proc/${pid}/environ', 0, 1000000) as e`)).rows[0].e as Buffer;
    for (const bytes of [raw, fromSql]) {
      const text = bytes.toString('utf8');
      expect(text).toContain('LC_MESSAGES=C');
      for (const [name, value] of Object.entries(SECRETS)) {
        expect(text).not.toContain(`${name}=`);
        expect(text).not.toContain(value);
      }
    }
    // an allow-list: nothing outside locale, time zone, paths and home
    for (const name of env.keys()) expect(name).toMatch(/^(PATH|HOME|TMPDIR|TZ|LANG|LANGUAGE|LD_LIBRARY_PATH|LC_[A-Z]+|PG[A-Z_]*)$/);
    expect(env.get('LANG')).toBe('C.UTF-8');
    expect(env.get('TZ')).toBe('UTC');
  } finally {
    await c.end();
  }
});
