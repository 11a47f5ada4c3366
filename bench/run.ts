import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchAuth, ratio } from './auth';
import { ROOT, startBenchEnv } from './lib/env';
import { benchProjects, seedOrg } from './org';

interface Row {
  metric: string;
  value: string;
  target: string;
  met: boolean | null;
}

function table(rows: Row[]): string {
  const head = ['metric', 'measured', 'target', 'met'];
  const lines = rows.map((r) => [r.metric, r.value, r.target, r.met === null ? '—' : r.met ? 'yes' : 'NO']);
  const out = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...lines.map((l) => `| ${l.join(' | ')} |`)];
  return out.join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  const resultsDir = path.join(ROOT, 'bench/results');
  mkdirSync(resultsDir, { recursive: true });
  const rows: Row[] = [];
  const results: Record<string, unknown> = { machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, memGb: Math.round(os.totalmem() / 2 ** 30) }, startedAt: new Date().toISOString() };

  const env = await startBenchEnv();
  try {
    process.stdout.write('seeding the organisation through the services…\n');
    const seed = await seedOrg(env);
    results.seed = { counts: seed.counts, visibleToReader: seed.visibleToReader, seedSeconds: seed.seedSeconds };
    process.stdout.write(`  ${JSON.stringify(results.seed)}\n`);
    process.stdout.write('projects list vs raw SQL floor…\n');
    const projects = await benchProjects(env, seed);
    results.projects = projects;
    await seed.orm.close(true);

    process.stdout.write('auth: healthz, me, login, login storm…\n');
    const auth = await benchAuth(env);
    results.auth = auth;
    const fmt = (l: { medianMs: number; p95Ms: number; p99Ms: number; rps: number }) => `median ${l.medianMs} ms, p95 ${l.p95Ms}, p99 ${l.p99Ms}, ${l.rps} req/s`;
    rows.push({ metric: 'GET /healthz (floor)', value: fmt(auth.healthz), target: '—', met: null });
    const pr = ratio(projects.api.medianMs, projects.raw.medianMs);
    rows.push({ metric: `GET /api/projects (${seed.visibleToReader} visible of ${seed.counts.projects})`, value: fmt(projects.api), target: '—', met: null });
    rows.push({ metric: 'raw SQL + Express floor, same rows', value: fmt(projects.raw), target: '—', met: null });
    rows.push({ metric: '/api/projects vs raw floor (median)', value: `${pr}×`, target: '≤ 2×', met: pr <= 2 });
    const meRatio = ratio(auth.me.medianMs, auth.healthz.medianMs);
    rows.push({ metric: 'GET /api/auth/me', value: `${fmt(auth.me)} (${meRatio}× healthz median)`, target: '≤ 2.5× /healthz median', met: meRatio <= 2.5 });
    const loginShare = ratio(auth.login.rps, auth.bcryptPerSecond);
    rows.push({ metric: 'login throughput', value: `${auth.login.rps} logins/s vs bcrypt ceiling ${auth.bcryptPerSecond}/s (${Math.round(loginShare * 100)}%)`, target: '≥ 90% of bcrypt ceiling', met: loginShare >= 0.9 });
    rows.push({ metric: '/api/auth/me p99 during login storm', value: `${auth.storm.me.p99Ms} ms (storm ${auth.storm.login.rps} logins/s)`, target: '≤ 50 ms', met: auth.storm.me.p99Ms <= 50 });
  } finally {
    await env.close();
  }

  results.finishedAt = new Date().toISOString();
  results.rows = rows;
  writeFileSync(path.join(resultsDir, 'summary.json'), JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(`\n${table(rows)}\n\n(${Math.round((Date.now() - started) / 1000)} s; JSON in bench/results/)\n`);
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
