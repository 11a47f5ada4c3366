import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, client } from '../support/http';
import { startOpenAiStub, OpenAiStub } from '../support/openai-stub';
import { freePort, Proc, ROOT, startProcess } from '../support/processes';

jest.setTimeout(180_000);

/** The README's quick-start block (the first ```sh block under "## Quick start"). */
function quickStartBlock(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const m = /```sh\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error('README has no quick-start shell block');
  return m[1];
}

function runBash(script: string, cwd: string, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `npm start` as a newcomer runs it: the real process, its own embedded database, no BOOTSTRAP_*. */
async function startFresh(dataDir: string, env: Record<string, string> = {}): Promise<Proc & { baseUrl: string }> {
  const port = await freePort();
  const clean = { ...process.env };
  for (const k of Object.keys(clean))
    if (k.startsWith('BOOTSTRAP_') || k === 'DATABASE_URL' || k === 'NODE_ENV' || k === 'JWT_SECRET' || k === 'ENCRYPTION_KEY')
      delete clean[k];
  const p = await startProcess(
    'dist/src/main.js',
    [],
    {
      ...clean,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      EMBEDDED_PG_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      LOGIN_RATE_LIMIT_PER_IP: '0',
      LOGIN_RATE_LIMIT_PER_ACCOUNT: '0',
      ...env,
    },
    /DocQA is ready/,
    120_000,
  );
  return Object.assign(p, { baseUrl: `http://127.0.0.1:${port}` });
}

const PASSWORD_LINE = /password: (\S+)/;

describe('first run', () => {
  let dir: string;
  let stub: OpenAiStub;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'docqa-first-run-'));
    stub = await startOpenAiStub({ deltas: ['Run ', 'npm test', ' [1].'] });
  });
  afterAll(async () => {
    await stub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('development: creates admin@localhost once, prints its password once, and the README quick start works as written', async () => {
    const dataDir = path.join(dir, 'dev');
    let firstPassword: string;
    let server = await startFresh(dataDir);
    try {
      const out = server.output();
      expect(out).toContain('admin@localhost');
      expect(out).toContain('it will not be shown again');
      const password = PASSWORD_LINE.exec(out)![1];
      firstPassword = password;
      expect(password).toMatch(/^[A-Za-z0-9]{20}$/);
      // the banner names where everything is and that chat has no model yet
      for (const s of [
        '/graphql',
        '/api/docs',
        '/healthz',
        '/readyz',
        `embedded PostgreSQL in ${dataDir}`,
        'chat model     NONE',
        'LLM_BASE_URL',
        'web search     off',
      ]) {
        expect(out).toContain(s);
      }
      // the password is never in a log line (only in the box)
      const logLines = out.split('\n').filter((l) => l.startsWith('{'));
      expect(logLines.length).toBeGreaterThan(0);
      expect(logLines.filter((l) => l.includes(password))).toEqual([]);

      const login = await api(server.baseUrl, 'POST', '/api/auth/login', { body: { email: 'admin@localhost', password } });
      expect(login.status).toBe(200);
      expect(login.body.user.platformRole).toBe('superadmin');

      // every line of the README's quick start, against this server and a local OpenAI-compatible model
      const script = quickStartBlock()
        .replace(/^PASSWORD=.*$/m, `PASSWORD='${password}'`)
        .replaceAll('http://localhost:3000', server.baseUrl)
        .replaceAll('http://localhost:11434/v1', stub.url);
      const run = await runBash(script, ROOT, 90_000);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const events = [...run.stdout.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
      expect(events[0]).toBe('meta');
      expect(events[1]).toBe('sources');
      expect(events.at(-1)).toBe('done');
      expect(run.stdout).toContain('README.md');
      expect(run.stdout).toContain('"delta":"npm test"');
    } finally {
      await server.kill();
    }

    // a second start creates nobody and prints no password
    server = await startFresh(dataDir, { LOG_FORMAT: 'pretty' });
    try {
      // LOG_FORMAT=pretty: readable lines instead of JSON
      expect(server.output()).toMatch(/INFO.*DocQA listening/);
      expect(server.output()).not.toMatch(/^\{"level"/m);
      expect(server.output()).not.toMatch(PASSWORD_LINE);
      expect(server.output()).not.toContain('not be shown again');
      const login = await api(server.baseUrl, 'POST', '/api/auth/login', { body: { email: 'admin@localhost', password: firstPassword } });
      expect(login.status).toBe(200);
      const users = await client(server.baseUrl, login.body.accessToken).get('/api/users');
      expect(users.status).toBe(200);
      expect(users.body.total).toBe(1);
      // the provider the quick start added is now what chat uses
      expect(server.output()).toContain('ollama/llama3.2');
    } finally {
      await server.kill();
    }
  });

  it('production: creates nobody, shows no credentials, and says how to bootstrap', async () => {
    const server = await startFresh(path.join(dir, 'prod'), {
      NODE_ENV: 'production',
      JWT_SECRET: 'first-run-production-secret',
      ENCRYPTION_KEY: 'first-run-production-encryption-key',
      LOG_FORMAT: 'pretty',
    });
    try {
      const out = server.output();
      expect(out).not.toMatch(PASSWORD_LINE);
      expect(out).not.toContain('admin@localhost');
      expect(out).toContain('npm run bootstrap -- --email');
      expect(out).toContain('BOOTSTRAP_SUPERADMIN_EMAIL');
      // JSON lines only in production, even when asked for pretty output
      expect(out.split('\n').filter((l) => l.trim() && !l.startsWith('{'))).toEqual([]);
      const login = await api(server.baseUrl, 'POST', '/api/auth/login', {
        body: { email: 'admin@localhost', password: 'whatever-password' },
      });
      expect(login.status).toBe(503);
      expect(login.body.error).toBe('not_bootstrapped');
    } finally {
      await server.kill();
    }
  });
});
