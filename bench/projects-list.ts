import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../src/config';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { createOrm, migrate } from '../src/db/orm';
import { createLogger } from '../src/logger';
import { compose } from '../src/composition';
import { existingDatabase } from '../src/db/database';
import { freePort } from '../src/util/net';

/**
 * GET /api/projects for a caller who sees VISIBLE projects through mixed grants (a quarter each by
 * direct user grant, group grant, department grant and public visibility), among HIDDEN private
 * projects they cannot see. Each project has MEMBERS visible members; some have documents and
 * conversations. Measures REQUESTS sequential requests after a warm-up.
 *
 *   node dist/bench/projects-list.js [--visible 500] [--hidden 500] [--requests 50]
 *
 * With DATABASE_URL the data is seeded there (rows are added, nothing is removed); otherwise a
 * fresh embedded PostgreSQL is started in a temporary directory and removed afterwards.
 */
const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const VISIBLE = arg('visible', 500);
const HIDDEN = arg('hidden', 500);
const REQUESTS = arg('requests', 50);
const WARMUP = 5;
const MEMBERS = 3;

/** Seeds the caller and the projects in bulk SQL; returns the caller's id. */
export async function seed(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const tag = Math.random().toString(36).slice(2, 8);
    await c.query('begin');
    const dept = (await c.query(`insert into departments (name) values ($1) returning id`, [`Bench dept ${tag}`])).rows[0].id;
    const user = async (email: string, role = 'none', deptId: string | null = null): Promise<string> =>
      (
        await c.query(
          `insert into users (email, name, password_hash, platform_role, department_id, avatar_color) values ($1, $1, 'x', $2, $3, '#888888') returning id`,
          [`${email}-${tag}@bench.local`, role, deptId],
        )
      ).rows[0].id;
    const me = await user('reader', 'none', dept);
    const owner = await user('owner', 'admin');
    const stranger = await user('stranger');
    const members: string[] = [];
    for (let i = 0; i < MEMBERS; i++) members.push(await user(`member${i}`, 'none', dept));
    const groups: string[] = [];
    for (let i = 0; i < 3; i++) {
      const g = (await c.query(`insert into groups (name, department_id) values ($1, $2) returning id`, [`Bench group ${tag} ${i}`, dept]))
        .rows[0].id;
      await c.query(`insert into group_members (group_id, user_id) values ($1, $2)`, [g, me]);
      groups.push(g);
    }
    // projects 1..VISIBLE are visible to `me` (i % 4: 1 user, 2 group, 3 department, 0 public); the rest are hidden
    await c.query(`create temp table bench_projects (i int, project_id uuid) on commit drop`);
    await c.query(
      `with made as (
         insert into projects (name, is_private, owner_id, created_by_id)
         select 'Bench ' || $1 || ' ' || i, not (i <= $2::int and i % 4 = 0), $3, $3 from generate_series(1, $2::int + $4::int) i
         returning id, name)
       insert into bench_projects select split_part(name, ' ', 3)::int, id from made`,
      [tag, VISIBLE, owner, HIDDEN],
    );
    const tiers = `(array['use','edit','full'])[1 + b.i % 3]`;
    await c.query(
      `insert into project_grants (project_id, user_id, tier) select b.project_id, $1, ${tiers} from bench_projects b where b.i <= $2 and b.i % 4 = 1`,
      [me, VISIBLE],
    );
    await c.query(
      `insert into project_grants (project_id, group_id, tier) select b.project_id, ($1::uuid[])[1 + b.i % 3], ${tiers} from bench_projects b where b.i <= $2 and b.i % 4 = 2`,
      [groups, VISIBLE],
    );
    await c.query(
      `insert into project_grants (project_id, department_id, tier) select b.project_id, $1, ${tiers} from bench_projects b where b.i <= $2 and b.i % 4 = 3`,
      [dept, VISIBLE],
    );
    await c.query(
      `insert into project_grants (project_id, user_id, tier) select b.project_id, $1, 'full' from bench_projects b where b.i > $2`,
      [stranger, VISIBLE],
    );
    // a direct grant that narrows a group grant, on every 10th group-granted project
    await c.query(
      `insert into project_grants (project_id, user_id, tier) select b.project_id, $1, 'use' from bench_projects b where b.i <= $2 and b.i % 20 = 2`,
      [me, VISIBLE],
    );
    await c.query(
      `insert into project_members (project_id, user_id) select b.project_id, m from bench_projects b cross join unnest($1::uuid[]) m`,
      [members],
    );
    await c.query(
      `insert into project_members (project_id, user_id) select b.project_id, $1 from bench_projects b where b.i <= $2 and b.i % 4 = 1 on conflict do nothing`,
      [me, VISIBLE],
    );
    await c.query(
      `insert into documents (project_id, name, mime_type, size, sha256, status, content)
       select b.project_id, 'doc-' || d || '.txt', 'text/plain', 1, md5(b.project_id::text || d), 'ready', '\\x00'::bytea
         from bench_projects b cross join generate_series(1, 2) d where b.i % 5 = 0`,
    );
    await c.query(
      `insert into conversations (project_id, user_id, title) select b.project_id, $1, 'q' from bench_projects b where b.i % 3 = 0`,
      [me],
    );
    await c.query('commit');
    await c.query('analyze');
    return me;
  } finally {
    await c.end();
  }
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round = (n: number): number => Math.round(n * 100) / 100;

async function main(): Promise<void> {
  let dbUrl = process.env.DATABASE_URL ?? '';
  let stopDb: (() => Promise<void>) | null = null;
  let tmp: string | null = null;
  if (!dbUrl) {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-projects-'));
    const db = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg'), port: await freePort() });
    dbUrl = db.url;
    stopDb = db.stop;
  }
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    DATABASE_URL: dbUrl,
    LOG_LEVEL: 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: tmp ?? os.tmpdir(),
  });
  const logger = createLogger('silent');
  const orm = await createOrm(dbUrl);
  await migrate(orm);
  const server = await compose(config, {
    role: 'server',
    overrides: { database: existingDatabase(dbUrl, orm), logger, workers: false, firstRun: false, listen: false },
  });
  await server.start();
  const { services } = server;
  const app = server.app!;
  try {
    const seedStart = performance.now();
    const me = await seed(dbUrl);
    const seedMs = performance.now() - seedStart;
    await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', () => resolve()));
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const headers = { authorization: `Bearer ${services.tokens.signAccess(me)}` };

    let seen = 0;
    let bytes = 0;
    const samples: number[] = [];
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      const t0 = performance.now();
      const res = await fetch(`${base}/api/projects`, { headers });
      const text = await res.text();
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`GET /api/projects answered ${res.status}: ${text.slice(0, 200)}`);
      if (i >= WARMUP) samples.push(ms);
      seen = (JSON.parse(text) as { projects: unknown[] }).projects.length;
      bytes = text.length;
    }
    if (seen !== VISIBLE) throw new Error(`expected ${VISIBLE} visible projects, got ${seen}`);
    const sorted = [...samples].sort((a, b) => a - b);
    const result = {
      benchmark: 'GET /api/projects',
      visibleProjects: seen,
      hiddenProjects: HIDDEN,
      membersPerProject: MEMBERS,
      responseBytes: bytes,
      requests: samples.length,
      medianMs: round(pct(sorted, 50)),
      p95Ms: round(pct(sorted, 95)),
      minMs: round(sorted[0]),
      maxMs: round(sorted[sorted.length - 1]),
      seedMs: Math.round(seedMs),
      database: process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded (fresh)',
      machine: { cpus: os.cpus().length, node: process.version },
      at: new Date().toISOString(),
    };
    const dir = path.resolve(__dirname, '../../bench/results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'projects-list.json'), JSON.stringify(result, null, 2) + '\n');
    process.stdout.write(
      `GET /api/projects, ${seen} visible of ${VISIBLE + HIDDEN} projects (${bytes} bytes): ` +
        `median ${result.medianMs} ms, p95 ${result.p95Ms} ms over ${samples.length} requests\n`,
    );
  } finally {
    await server.stop();
    if (stopDb) await stopDb();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
