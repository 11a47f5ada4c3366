import bcrypt from 'bcrypt';
import { BenchEnv } from './lib/env';
import { load, LoadResult, round } from './lib/load';

async function login(env: BenchEnv): Promise<string> {
  const r = await fetch(`${env.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(env.superadmin),
  });
  if (!r.ok) throw new Error(`login failed: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { accessToken: string }).accessToken;
}

/** How many bcrypt cost-10 compares per second this machine's cores allow (the login ceiling). */
export async function bcryptCapacity(durationMs = 4000): Promise<number> {
  const hash = await bcrypt.hash('some-password', 10);
  let done = 0;
  const end = Date.now() + durationMs;
  const start = Date.now();
  // more in flight than libuv threads, so every thread stays busy
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (Date.now() < end) {
        await bcrypt.compare('some-password', hash);
        done++;
      }
    }),
  );
  return Math.round(done / ((Date.now() - start) / 1000));
}

export interface AuthBench {
  healthz: LoadResult;
  me: LoadResult;
  login: LoadResult;
  bcryptPerSecond: number;
  storm: { login: LoadResult; me: LoadResult };
}

export async function benchAuth(env: BenchEnv): Promise<AuthBench> {
  const token = await login(env);
  const healthz = await load('GET /healthz', { baseUrl: env.baseUrl, request: { path: '/healthz' }, connections: 10 });
  const me = await load('GET /api/auth/me', {
    baseUrl: env.baseUrl,
    request: { path: '/api/auth/me', headers: { authorization: `Bearer ${token}` } },
    connections: 10,
  });
  const bcryptPerSecond = await bcryptCapacity();
  const loginBody = JSON.stringify(env.superadmin);
  const loginLoad = await load('POST /api/auth/login', {
    baseUrl: env.baseUrl,
    request: { method: 'POST', path: '/api/auth/login', body: loginBody },
    connections: 8,
    durationMs: 6000,
  });
  // a login storm, and /me measured during it
  const [stormLogin, stormMe] = await Promise.all([
    load('login storm', {
      baseUrl: env.baseUrl,
      request: { method: 'POST', path: '/api/auth/login', body: loginBody },
      connections: 16,
      durationMs: 6000,
      warmupMs: 200,
    }),
    load('GET /api/auth/me during login storm', {
      baseUrl: env.baseUrl,
      request: { path: '/api/auth/me', headers: { authorization: `Bearer ${token}` } },
      connections: 2,
      durationMs: 5000,
      warmupMs: 700,
    }),
  ]);
  return { healthz, me, login: loginLoad, bcryptPerSecond, storm: { login: stormLogin, me: stormMe } };
}

export const ratio = (a: number, b: number): number => round(a / b, 2);
