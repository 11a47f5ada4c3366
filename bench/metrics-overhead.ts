import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startOpenAiStub } from '../test/support/openai-stub';
import { askOnce, json, seedChatBench } from './chat-overhead';
import { Child, freePort, ROOT, spawnReady, startBenchEnv } from './lib/env';
import { load, LoadResult } from './lib/load';

/**
 * What the Prometheus metrics cost, measured in one run: two real servers (`dist/src/main.js`,
 * production mode) on the same embedded PostgreSQL, identical except that B has metrics on
 * (METRICS_TOKEN set: the HTTP histogram middleware and /metrics; A has none). They take turns
 * — A, B, A, B, … — so drift on the shared 2 cores hits both alike:
 *   - GET /api/auth/me under closed-loop load (10 connections, ROUNDS rounds of 5 s each per server);
 *   - the chat overhead before the first `text` event (bench/chat-overhead.ts's measure, CHUNKS
 *     chunks, REQUESTS sequential questions per server, in alternating blocks).
 * B is scraped every second during its turns, as Prometheus would (more often than its usual 15 s).
 *
 *   node dist/bench/metrics-overhead.js [--rounds 4] [--chunks 100000] [--requests 40]
 */
const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const r2 = (x: number) => Math.round(x * 100) / 100;
const pct = (after: number, before: number) => r2(((after - before) / before) * 100);
const METRICS_TOKEN = 'bench-metrics-token-0123456789';

async function main(): Promise<void> {
  const rounds = arg('rounds', 4);
  const chunks = arg('chunks', 100_000);
  const requests = arg('requests', 40);
  const log = (m: string) => process.stderr.write(`metrics-overhead: ${m}\n`);
  const env = await startBenchEnv({ RUN_WORKERS: 'false' });
  let b: Child | null = null;
  const stub = await startOpenAiStub({ ttftMs: 200, deltas: ['The answer ', 'is in ', 'the context [1].'] });
  try {
    const port = await freePort();
    b = await spawnReady(
      'dist/src/main.js',
      [],
      {
        NODE_ENV: 'production',
        DATABASE_URL: env.dbUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        JWT_SECRET: env.jwtSecret,
        ENCRYPTION_KEY: env.encryptionKey,
        LOG_LEVEL: 'warn',
        LOGIN_RATE_LIMIT_PER_IP: '0',
        LOGIN_RATE_LIMIT_PER_ACCOUNT: '0',
        ALLOW_PRIVATE_NETWORK: 'true',
        RUN_WORKERS: 'false',
        METRICS_TOKEN,
      },
      async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok,
    );
    const servers = { off: env.baseUrl, on: `http://127.0.0.1:${port}` };
    if ((await fetch(`${servers.off}/metrics`)).status !== 404) throw new Error('server A must have metrics off');
    if ((await fetch(`${servers.on}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status !== 200)
      throw new Error('server B must serve metrics');
    let scraping = false;
    const scraper = setInterval(() => {
      if (scraping)
        void fetch(`${servers.on}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
          .then((r) => r.text())
          .catch(() => undefined);
    }, 1000);
    const turn = async <T>(which: 'off' | 'on', fn: () => Promise<T>): Promise<T> => {
      scraping = which === 'on';
      try {
        return await fn();
      } finally {
        scraping = false;
      }
    };

    const { accessToken } = await json(env, 'POST', '/api/auth/login', null, env.superadmin);
    const me: Record<'off' | 'on', LoadResult[]> = { off: [], on: [] };
    for (let i = 0; i < rounds; i++) {
      for (const which of ['off', 'on'] as const) {
        const r = await turn(which, () =>
          load(`GET /api/auth/me (metrics ${which})`, {
            baseUrl: servers[which],
            request: { path: '/api/auth/me', headers: { authorization: `Bearer ${accessToken}` } },
            connections: 10,
            durationMs: 5000,
          }),
        );
        me[which].push(r);
        log(`me metrics ${which} round ${i + 1}: median ${r.medianMs} ms, ${r.rps} req/s`);
      }
    }

    const { projectId, question } = await seedChatBench(env, accessToken, stub.url, 'Metrics overhead bench', chunks, log);
    const at = (which: 'off' | 'on') => ({ ...env, baseUrl: servers[which] });
    for (const which of ['off', 'on'] as const) for (let i = 0; i < 5; i++) await askOnce(at(which), accessToken, projectId, question());
    const overhead: Record<'off' | 'on', number[]> = { off: [], on: [] };
    const block = 5;
    for (let i = 0; i < requests; i += block) {
      for (const which of ['off', 'on'] as const) {
        await turn(which, async () => {
          for (let k = 0; k < block; k++) {
            const before = stub.requests.length;
            const r = await askOnce(at(which), accessToken, projectId, question());
            const up = stub.requests[before];
            overhead[which].push(r.firstTextMs - (up.firstDeltaAt! - up.receivedAt));
          }
        });
      }
    }
    clearInterval(scraper);

    const meOff = r2(median(me.off.map((r) => r.medianMs)));
    const meOn = r2(median(me.on.map((r) => r.medianMs)));
    const rpsOff = median(me.off.map((r) => r.rps));
    const rpsOn = median(me.on.map((r) => r.rps));
    const chatOff = median(overhead.off);
    const chatOn = median(overhead.on);
    const result = {
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
      measuredAt: new Date().toISOString(),
      method:
        'two production servers on one database, identical but for METRICS_TOKEN (B: metrics on, scraped every second during its turns); turns alternate A, B, A, B',
      me: {
        rounds,
        medianMs: { off: meOff, on: meOn, changePct: pct(meOn, meOff) },
        rps: { off: rpsOff, on: rpsOn, changePct: pct(rpsOn, rpsOff) },
        runs: me,
      },
      chatOverhead: {
        chunks,
        requests,
        medianMs: { off: r2(chatOff), on: r2(chatOn), changePct: pct(chatOn, chatOff) },
        samples: overhead,
      },
    };
    mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(path.join(ROOT, 'bench/results/metrics-overhead.json'), JSON.stringify(result, null, 2) + '\n');
    process.stdout.write(
      `GET /api/auth/me median: metrics off ${meOff} ms, on ${meOn} ms (${result.me.medianMs.changePct}%); req/s ${rpsOff} → ${rpsOn} (${result.me.rps.changePct}%)\n` +
        `chat overhead before the first text (${chunks} chunks) median: off ${r2(chatOff)} ms, on ${r2(chatOn)} ms (${result.chatOverhead.medianMs.changePct}%)\n`,
    );
  } finally {
    await stub.close();
    await b?.stop();
    await env.close();
  }
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
