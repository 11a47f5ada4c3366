import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../src/util/net';
export { freePort };

export const ROOT = path.resolve(__dirname, '../..');
export const DIST_MAIN = path.join(ROOT, 'dist/src/main.js');

export interface Proc {
  child: ChildProcess;
  output: () => string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns a compiled entry point from dist/ and waits until `readyLine` appears on stdout/stderr. */
export async function startProcess(
  script: string,
  args: string[],
  env: Record<string, string>,
  readyLine: RegExp,
  timeoutMs = 60_000,
): Promise<Proc> {
  const file = path.join(ROOT, script);
  if (!existsSync(file)) throw new Error(`${file} is missing: npm test builds dist/ first (pretest)`);
  const child = spawn(process.execPath, [file, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not become ready:\n${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (readyLine.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    // not awaited: inside the executor; an exit before the ready line rejects the outer promise
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before ready:\n${out}`));
    });
  });
  return {
    child,
    output: () => out,
    exited,
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** An embedded PostgreSQL in a process of its own. */
export async function startPgProcess(dataDir: string, port?: number): Promise<Proc & { url: string }> {
  const p = await startProcess(
    'dist/src/cli/embedded-pg.js',
    ['--data-dir', dataDir, ...(port ? ['--port', String(port)] : [])],
    {},
    /ready postgres:\/\/\S+\n/,
  );
  const url = /ready (postgres:\/\/\S+)\n/.exec(p.output())![1];
  return Object.assign(p, { url });
}

/** The real server (`node dist/src/main.js`) on a free port. */
export async function startServerProcess(env: Record<string, string>): Promise<Proc & { baseUrl: string }> {
  const port = await freePort();
  const p = await startProcess(
    'dist/src/main.js',
    [],
    {
      // production mode, as operators run it (Apollo's signal handling, no introspection, etc.)
      NODE_ENV: 'production',
      ALLOW_PRIVATE_NETWORK: 'true',
      LOG_LEVEL: 'info',
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET: 'process-secret-process-secret',
      ENCRYPTION_KEY: 'process-encryption-key-process',
      LOGIN_RATE_LIMIT_PER_IP: '0',
      LOGIN_RATE_LIMIT_PER_ACCOUNT: '0',
      LOGIN_RATE_LIMIT_ACCOUNT_TOTAL: '0',
      ...env,
    },
    /DocQA listening/,
  );
  return Object.assign(p, { baseUrl: `http://127.0.0.1:${port}` });
}
