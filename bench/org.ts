import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Actor } from '../src/access/actor';
import { loadConfig } from '../src/config';
import { createOrm } from '../src/db/orm';
import { createLogger } from '../src/logger';
import { compose } from '../src/composition';
import { existingDatabase } from '../src/db/database';
import type { Services } from '../src/services';
import type { Tier } from '../src/entities/base';
import { BenchEnv, freePort, spawnReady } from './lib/env';
import { load, LoadResult } from './lib/load';

export interface OrgSeed {
  readerId: string;
  readerToken: string;
  visibleToReader: number;
  counts: { users: number; departments: number; groups: number; projects: number; grants: number };
  seedSeconds: number;
}

const TIERS: Tier[] = ['use', 'edit', 'full'];
const pick = <T>(xs: T[], i: number): T => xs[i % xs.length];

/** Runs `fn` over items with at most `n` in flight. */
export async function pool<T>(items: T[], n: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

/** The services in this process, on the bench database with the server's secrets (for seeding and statement counts). */
export async function benchServices(env: BenchEnv): Promise<{ orm: MikroORM; services: Services }> {
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: env.dbUrl,
    JWT_SECRET: env.jwtSecret,
    ENCRYPTION_KEY: env.encryptionKey,
    LOG_LEVEL: 'silent',
  });
  const orm = await createOrm(env.dbUrl, { poolMax: 10 });
  const c = await compose(config, {
    role: 'cli',
    overrides: { database: existingDatabase(env.dbUrl, orm), logger: createLogger('silent') },
  });
  return { orm, services: c.services };
}

/**
 * Seeds an organisation THROUGH THE SERVICES (the same calls the API makes): 40 departments,
 * 2,000 users, 200 groups, 1,000 projects and mixed grants; one "reader" sees ~500 projects
 * through direct, group and department grants and public projects.
 */
export async function seedOrg(env: BenchEnv): Promise<OrgSeed & { orm: MikroORM; services: Services }> {
  const started = Date.now();
  const { orm, services } = await benchServices(env);
  const root = Actor.system();

  const departments: string[] = [];
  for (let d = 0; d < 40; d++)
    departments.push(
      (await services.departments.create(root, { name: `Department ${d}`, color: '#336699', description: `Bench department ${d}` }))
        .department.id,
    );

  const users: Array<{ id: string; dept: string | null; role: string }> = [];
  const specs = Array.from({ length: 2000 }, (_, i) => {
    const role = i < 20 ? 'admin' : i < 30 ? 'engineer' : 'none';
    const dept = role === 'none' ? pick(departments, i) : null;
    const orgPosition = role === 'none' && i < 30 + 40 ? 'manager' : 'member';
    return {
      email: `user${i}@bench.example.com`,
      name: `User ${i}`,
      password: 'bench-user-password',
      platformRole: role,
      orgPosition,
      departmentId: dept ?? undefined,
    };
  });
  await pool(specs, 8, async (s, i) => {
    const u = await services.users.create(root, s as never);
    users[i] = { id: u.id, dept: s.departmentId ?? null, role: s.platformRole };
  });
  const admins = users.filter((u) => u.role === 'admin');
  const members = users.filter((u) => u.role === 'none');

  const groups: string[] = [];
  for (let g = 0; g < 200; g++) {
    const dept = pick(departments, g);
    const group = await services.groups.create(root, { name: `Group ${g}`, description: '', departmentId: dept });
    groups.push(group.group.id);
    const inDept = members.filter((m) => m.dept === dept);
    const ids = Array.from({ length: 8 }, (_, k) => inDept[(g * 3 + k * 7) % inDept.length].id);
    await services.groups.addMembers(root, group.group.id, { userIds: [...new Set(ids)] });
  }

  const reader = members[100];
  const readerGroups = groups.filter((_, g) => pick(departments, g) === reader.dept).slice(0, 3);
  await Promise.all(readerGroups.map((g) => services.groups.addMembers(root, g, { userIds: [reader.id] })));

  const projects: string[] = [];
  await pool(
    Array.from({ length: 1000 }, (_, i) => i),
    4,
    async (i) => {
      const owner = pick(admins, i);
      const ownerActor = { ...root, id: owner.id, platformRole: 'admin' as const, system: false };
      // every 8th project is public; the reader sees those
      const p = await services.projects.create(ownerActor, {
        name: `Project ${i}`,
        description: `Bench project ${i}`,
        isPrivate: i % 8 !== 0,
      });
      projects[i] = p.project.id;
    },
  );

  let grants = 0;
  await pool(projects, 4, async (projectId, i) => {
    const upserts: Array<{ targetType: string; targetId: string; tier: Tier }> = [];
    // background grants: random users, groups, departments
    upserts.push({ targetType: 'user', targetId: pick(members, i * 13 + 1).id, tier: pick(TIERS, i) });
    upserts.push({ targetType: 'group', targetId: pick(groups, i * 7 + 3), tier: pick(TIERS, i + 1) });
    upserts.push({ targetType: 'department', targetId: pick(departments, i * 3 + 5), tier: pick(TIERS, i + 2) });
    // the reader: ~3/8 of projects through grants (direct, group, department), plus the public eighth
    const k = i % 8;
    if (k === 1) upserts.push({ targetType: 'user', targetId: reader.id, tier: pick(TIERS, i) });
    if (k === 2 && readerGroups.length) upserts.push({ targetType: 'group', targetId: pick(readerGroups, i), tier: pick(TIERS, i) });
    if (k === 3 && reader.dept) upserts.push({ targetType: 'department', targetId: reader.dept, tier: 'use' });
    for (const u of upserts) {
      await services.grants.upsert(root, projectId, u as never);
      grants++;
    }
  });
  const readerToken = services.tokens.signAccess(reader.id);
  const list = await fetch(`${env.baseUrl}/api/projects`, { headers: { authorization: `Bearer ${readerToken}` } });
  const visible = ((await list.json()) as { projects: unknown[] }).projects.length;
  return {
    orm,
    services,
    readerId: reader.id,
    readerToken,
    visibleToReader: visible,
    counts: { users: users.length + 1, departments: departments.length, groups: groups.length, projects: projects.length, grants },
    seedSeconds: Math.round((Date.now() - started) / 1000),
  };
}

export interface ProjectsBench {
  api: LoadResult;
  raw: LoadResult;
  rawHealthz: LoadResult;
  bytesApi: number;
  bytesRaw: number;
}

/** GET /api/projects for the reader against the raw-SQL floor, both measured in this run. */
export async function benchProjects(env: BenchEnv, seed: OrgSeed): Promise<ProjectsBench> {
  const port = await freePort();
  const floor = await spawnReady('dist/bench/raw-floor.js', ['--db', env.dbUrl, '--port', String(port)], {}, /ready/);
  try {
    const rawBase = `http://127.0.0.1:${port}`;
    const bytesApi = (
      await (await fetch(`${env.baseUrl}/api/projects`, { headers: { authorization: `Bearer ${seed.readerToken}` } })).text()
    ).length;
    const bytesRaw = (await (await fetch(`${rawBase}/raw/projects/${seed.readerId}`)).text()).length;
    const api = await load('GET /api/projects (~500 visible)', {
      baseUrl: env.baseUrl,
      request: { path: '/api/projects', headers: { authorization: `Bearer ${seed.readerToken}` } },
      connections: 4,
      durationMs: 8000,
    });
    const raw = await load('raw SQL floor (same rows)', {
      baseUrl: rawBase,
      request: { path: `/raw/projects/${seed.readerId}` },
      connections: 4,
      durationMs: 8000,
    });
    const rawHealthz = await load('raw floor /healthz', {
      baseUrl: rawBase,
      request: { path: '/healthz' },
      connections: 4,
      durationMs: 2000,
    });
    return { api, raw, rawHealthz, bytesApi, bytesRaw };
  } finally {
    await floor.stop();
  }
}
