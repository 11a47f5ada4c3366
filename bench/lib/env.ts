import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/util/net';
export { freePort };

export const ROOT = path.resolve(__dirname, '../../..');

export interface Child {
  proc: ChildProcess;
  out: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Resident set size of the process in MB (Linux /proc). */
  rssMb(): number;
}

export async function spawnReady(
  script: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp | (() => Promise<boolean>),
  timeoutMs = 120_000,
  nodeArgs: string[] = [],
): Promise<Child> {
  const proc = spawn(process.execPath, [...nodeArgs, path.join(ROOT, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((r) => proc.on('exit', () => r()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} not ready:\n${out.slice(-2000)}`)), timeoutMs);
    const on = (d: Buffer) => {
      out += d.toString();
      if (out.length > 1_000_000) out = out.slice(-100_000);
      if (ready instanceof RegExp && ready.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    if (typeof ready === 'function') {
      const poll = async () => {
        if (proc.exitCode !== null) return;
        if (await ready().catch(() => false)) {
          clearTimeout(timer);
          resolve();
        } else setTimeout(() => void poll(), 100);
      };
      void poll();
    }
    proc.stdout.on('data', on);
    proc.stderr.on('data', on);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code}):\n${out.slice(-2000)}`));
    });
  });
  return {
    proc,
    out: () => out,
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
    rssMb: () => {
      const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return Math.round(kb / 1024);
    },
  };
}

export interface BenchEnv {
  dir: string;
  dbUrl: string;
  /** The embedded PostgreSQL, or null on a database the caller named (`database`). */
  pg: Child | null;
  server: Child;
  baseUrl: string;
  jwtSecret: string;
  /** The server's ENCRYPTION_KEY: a second server on the same database needs it to read stored provider keys. */
  encryptionKey: string;
  superadmin: { email: string; password: string };
  /** Stops the server and starts it again on the same database and port (`server` is the new process). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A fresh embedded PostgreSQL and the real server (`dist/src/main.js`), each in its own process;
 * with `database`, the server on that database instead (one a bench left up with `--hold 1`).
 */
export async function startBenchEnv(
  extraEnv: Record<string, string> = {},
  serverNodeArgs: string[] = [],
  database?: string,
): Promise<BenchEnv> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-'));
  const pg = database
    ? null
    : await spawnReady(
        'dist/src/cli/embedded-pg.js',
        ['--data-dir', dir, '--port', String(await freePort())],
        {},
        /ready postgres:\/\/\S+\n/,
      );
  const dbUrl = database ?? /ready (postgres:\/\/\S+)\n/.exec(pg!.out())![1];
  const port = await freePort();
  const jwtSecret = 'bench-secret-bench-secret-bench-secret';
  const encryptionKey = 'bench-encryption-key-bench-encryption-key';
  const superadmin = { email: 'root@bench.example.com', password: 'bench-root-password' };
  const serverEnv = {
    NODE_ENV: 'production',
    DATABASE_URL: dbUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    JWT_SECRET: jwtSecret,
    ENCRYPTION_KEY: encryptionKey,
    LOG_LEVEL: 'warn',
    LOGIN_RATE_LIMIT_PER_IP: '0',
    LOGIN_RATE_LIMIT_PER_ACCOUNT: '0',
    // the key benchmarks send thousands of requests a minute with one key: counted as in
    // production (the limit on), never refused
    KEY_RATE_LIMIT_PER_MINUTE: '1000000',
    ALLOW_PRIVATE_NETWORK: 'true',
    BOOTSTRAP_SUPERADMIN_EMAIL: superadmin.email,
    BOOTSTRAP_SUPERADMIN_PASSWORD: superadmin.password,
    BOOTSTRAP_SUPERADMIN_NAME: 'Bench Root',
    ...extraEnv,
  };
  const startServer = () =>
    spawnReady('dist/src/main.js', [], serverEnv, async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, 120_000, serverNodeArgs);
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: BenchEnv = {
    dir,
    dbUrl,
    pg,
    server: await startServer(),
    baseUrl,
    jwtSecret,
    encryptionKey,
    superadmin,
    restart: async () => {
      await env.server.stop();
      env.server = await startServer();
    },
    close: async () => {
      await env.server.stop();
      await pg?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return env;
}

/** A JSON request to the bench server; throws on a non-2xx answer. */
export async function json(env: BenchEnv, method: string, p: string, token: string | null, body?: unknown): Promise<any> {
  const res = await fetch(`${env.baseUrl}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const out = await res.json().catch(() => undefined);
  if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${JSON.stringify(out)}`);
  return out;
}

/** Signs the superadmin in and creates a project: the Authorization header and the project's id. */
export async function signedInProject(env: BenchEnv, name: string): Promise<{ auth: Record<string, string>; projectId: string }> {
  const { accessToken } = await json(env, 'POST', '/api/auth/login', null, env.superadmin);
  const { project } = await json(env, 'POST', '/api/projects', accessToken, { name });
  return { auth: { authorization: `Bearer ${accessToken as string}` }, projectId: project.id as string };
}
