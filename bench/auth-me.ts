import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { json, ROOT, startBenchEnv, type BenchEnv } from './lib/env';
import { benchKeyVsJwt, keyVsJwtWorld } from './keys';
import { load, round } from './lib/load';

/**
 * Issue 38's target "GET /api/auth/me costs ≤ 2.5× /healthz at p50": the real server in its own
 * process, /healthz and /api/auth/me (with an access token, and with a key) under closed-loop load,
 * in alternating rounds so drift on a shared machine hits both alike; the ratio of each round's
 * medians, and the median of those ratios.
 *
 *   node dist/bench/auth-me.js [--rounds 7] [--connections 10] [--seconds 3]
 */
export interface AuthMeBench {
  connections: number;
  rounds: Array<{ healthzMs: number; meMs: number; meKeyMs: number; ratio: number; keyRatio: number }>;
  /** Medians over the rounds. */
  ratio: number;
  keyRatio: number;
  healthzMs: number;
  meMs: number;
  meKeyMs: number;
  /** Load averages (1, 5, 15 min) at the end: on a shared machine, say how loaded it was. */
  load: number[];
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function benchAuthMe(
  env: BenchEnv,
  opts: { rounds?: number; connections?: number; seconds?: number } = {},
): Promise<AuthMeBench> {
  const connections = opts.connections ?? 10;
  const { accessToken } = (await json(env, 'POST', '/api/auth/login', null, env.superadmin)) as { accessToken: string };
  const { secret } = (await json(env, 'POST', '/api/keys', accessToken, { name: 'auth-me bench' })) as { secret: string };
  const run = async (p: string, token?: string) => {
    const r = await load(p, {
      baseUrl: env.baseUrl,
      request: { path: p, headers: token ? { authorization: `Bearer ${token}` } : {} },
      connections,
      durationMs: (opts.seconds ?? 3) * 1000,
      warmupMs: 500,
    });
    if (r.errors || r.non2xx) throw new Error(`${p}: ${r.errors} errors, ${r.non2xx} non-2xx`);
    return r.medianMs;
  };
  const rounds: AuthMeBench['rounds'] = [];
  for (let i = 0; i < (opts.rounds ?? 7); i++) {
    const healthzMs = await run('/healthz');
    const meMs = await run('/api/auth/me', accessToken);
    const meKeyMs = await run('/api/auth/me', secret);
    rounds.push({ healthzMs, meMs, meKeyMs, ratio: round(meMs / healthzMs), keyRatio: round(meKeyMs / healthzMs) });
  }
  return {
    connections,
    rounds,
    ratio: median(rounds.map((r) => r.ratio)),
    keyRatio: median(rounds.map((r) => r.keyRatio)),
    healthzMs: round(median(rounds.map((r) => r.healthzMs))),
    meMs: round(median(rounds.map((r) => r.meMs))),
    meKeyMs: round(median(rounds.map((r) => r.meKeyMs))),
    load: os.loadavg().map((x) => round(x, 1)),
  };
}

if (require.main === module) {
  const arg = (name: string, dflt: number): number => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : dflt;
  };
  void (async () => {
    const env = await startBenchEnv();
    try {
      const r = await benchAuthMe(env, { rounds: arg('rounds', 7), connections: arg('connections', 10), seconds: arg('seconds', 3) });
      const projects = await benchKeyVsJwt(env, await keyVsJwtWorld(env));
      const out = { ...r, projectsKeyVsJwt: { ratio: projects.ratio, rounds: projects.rounds }, at: new Date().toISOString() };
      mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
      writeFileSync(path.join(ROOT, 'bench/results/auth-me.json'), JSON.stringify(out, null, 2) + '\n');
      process.stdout.write(
        `GET /api/auth/me vs /healthz (${r.connections} connections, ${r.rounds.length} alternating rounds): median ratio ${r.ratio} ` +
          `(rounds ${r.rounds.map((x) => x.ratio).join(', ')}); with a key ${r.keyRatio}; medians ${r.healthzMs} / ${r.meMs} / ${r.meKeyMs} ms; ` +
          `GET /api/projects with a key vs a JWT ${projects.ratio} (${projects.key.medianMs} vs ${projects.jwt.medianMs} ms); load ${r.load.join(' ')}\n`,
      );
    } finally {
      await env.close();
    }
  })();
}
