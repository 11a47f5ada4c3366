import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { execute, parse } from 'graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Actor } from '../src/access/actor';
import { inRequestContext } from '../src/db/request-context';
import type { Tier } from '../src/entities/base';
import type { Services } from '../src/services';
import { createContext } from '../src/transports/graphql/context';
import { buildGraphqlSchema } from '../src/transports/graphql/schema';
import { projectFixtures } from '../test/support/project-fixtures';
import { BenchEnv, ROOT, startBenchEnv } from './lib/env';
import { load, LoadResult, send } from './lib/load';
import { benchServices, pool } from './org';

/**
 * GraphQL against REST for the query users run most: projects with their members (and grants).
 * A reader who sees exactly 100 projects (direct, group and department grants) carrying ~700 grants;
 * REST's `GET /api/projects` is the floor, measured in the same run, in interleaved rounds with 8
 * connections; the nested query is also timed alone (one connection). Statement counts come from
 * the same operations executed in this process against the same database.
 *
 *   node dist/bench/graphql.js [--rounds 3] [--seconds 3] [--only rest,list,nested] [--cpu-prof DIR]   # writes bench/results/graphql.json
 */

/** The fields `GET /api/projects` returns, asked for in GraphQL. */
export const REST_FIELDS = 'id name description color isPrivate accessTier accessSource members { user { id name email } }';
export const Q_LIST = `{ projects(limit: 100) { items { ${REST_FIELDS} } } }`;
export const Q_NESTED = `{ projects(limit: 100) { items { ${REST_FIELDS} grants { id tier user { id name email } group { id name } department { id name } } } } }`;

export interface GraphqlSeed {
  readerToken: string;
  reader: Actor;
  visible: number;
  grantsOnVisible: number;
}

const TIERS: Tier[] = ['use', 'edit', 'full'];
const pick = <T>(xs: T[], i: number): T => xs[i % xs.length];

/**
 * Through the services: 10 departments, 300 users, 40 groups, 130 private projects. The reader is
 * granted 100 of them (40 directly, 30 through a group, 30 through the department); each of those
 * carries six more grants (three users, two groups, a department): about 700 grants in all.
 */
export async function seedGraphqlOrg(env: BenchEnv, services: Services): Promise<GraphqlSeed> {
  const root = Actor.system();
  const departments: string[] = [];
  for (let d = 0; d < 10; d++)
    departments.push((await services.departments.create(root, { name: `Dept ${d}`, color: '#336699' })).department.id);
  const admin = await services.users.create(root, {
    email: 'owner@bench.example.com',
    name: 'Owner',
    password: 'bench-user-password',
    platformRole: 'admin',
    orgPosition: 'member',
  } as never);
  const users: string[] = [];
  await pool(
    Array.from({ length: 300 }, (_, i) => i),
    8,
    async (i) => {
      const u = await services.users.create(root, {
        email: `member${i}@bench.example.com`,
        name: `Member ${i}`,
        password: 'bench-user-password',
        platformRole: 'none',
        orgPosition: 'member',
        departmentId: pick(departments, i),
      } as never);
      users[i] = u.id;
    },
  );
  const reader = users[0];
  const groups: string[] = [];
  for (let g = 0; g < 40; g++) {
    const group = await services.groups.create(root, { name: `Team ${g}`, description: '', departmentId: pick(departments, g) });
    groups.push(group.group.id);
    // members from the group's department (user i is in department i % 10), never the reader
    const ids = Array.from({ length: 8 }, (_, k) => users[(g % 10) + 10 * (1 + ((g + k * 3) % 29))]);
    await services.groups.addMembers(root, group.group.id, { userIds: [...new Set(ids)] });
  }
  // the reader is in groups 0 and 10 (both of department 0, the reader's)
  const readerGroups = [groups[0], groups[10]];
  const otherGroups = groups.filter((g) => !readerGroups.includes(g));
  for (const g of readerGroups) await services.groups.addMembers(root, g, { userIds: [reader] });
  const ownerActor = { ...root, id: admin.id, platformRole: 'admin' as const, system: false };
  const projects: string[] = [];
  await pool(
    Array.from({ length: 130 }, (_, i) => i),
    4,
    async (i) => {
      const p = await services.projects.create(ownerActor, { name: `Project ${i}`, description: `Bench project ${i}`, isPrivate: true });
      projects[i] = p.project.id;
    },
  );
  let grantsOnVisible = 0;
  await pool(projects, 4, async (projectId, i) => {
    const upserts: Array<{ targetType: string; targetId: string; tier: Tier }> = [];
    if (i < 100) {
      if (i < 40) upserts.push({ targetType: 'user', targetId: reader, tier: pick(TIERS, i) });
      else if (i < 70) upserts.push({ targetType: 'group', targetId: pick(readerGroups, i), tier: pick(TIERS, i) });
      else upserts.push({ targetType: 'department', targetId: departments[0], tier: 'use' });
    }
    for (let k = 0; k < 3; k++)
      upserts.push({ targetType: 'user', targetId: users[1 + ((i * 11 + k * 97) % 299)], tier: pick(TIERS, i + k) });
    for (let k = 0; k < 2; k++)
      upserts.push({ targetType: 'group', targetId: otherGroups[(i * 5 + k * 17) % otherGroups.length], tier: pick(TIERS, i + k) });
    upserts.push({ targetType: 'department', targetId: departments[1 + (i % 9)], tier: pick(TIERS, i) });
    for (const u of upserts) {
      await services.grants.upsert(root, projectId, u as never);
      if (i < 100) grantsOnVisible++;
    }
  });
  const readerToken = services.tokens.signAccess(reader);
  const list = await fetch(`${env.baseUrl}/api/projects`, { headers: { authorization: `Bearer ${readerToken}` } });
  const visible = ((await list.json()) as { projects: unknown[] }).projects.length;
  const readerActor = await services.tokens.authenticate(readerToken);
  return { readerToken, reader: readerActor, visible, grantsOnVisible };
}

/** SQL statements the ORM's pool runs for `fn` in a request context of its own (the tests' counter). */
async function statements(orm: MikroORM, fn: () => Promise<unknown>): Promise<number> {
  return (await projectFixtures(orm).countQueries(() => inRequestContext(orm, fn))).queries;
}

export interface GraphqlBench {
  seed: { visible: number; grantsOnVisible: number };
  rest: LoadResult;
  list: LoadResult;
  nested: LoadResult;
  nestedIdle: LoadResult;
  restIdle: LoadResult;
  statements: { rest: number; list: number; nested: number };
  bytes: { rest: number; list: number; nested: number };
}

export async function benchGraphql(
  env: BenchEnv,
  orm: MikroORM,
  services: Services,
  opts: { rounds?: number; seconds?: number; only?: Array<'rest' | 'list' | 'nested'> } = {},
): Promise<GraphqlBench> {
  const seed = await seedGraphqlOrg(env, services);
  const auth = { authorization: `Bearer ${seed.readerToken}` };
  const gql = (query: string) => ({
    method: 'POST',
    path: '/graphql',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const rest = { path: '/api/projects', headers: auth };

  // the answers are right before anything is timed: 100 projects, no errors, the grants all there
  const agent = new http.Agent({ keepAlive: true });
  const base = new URL(env.baseUrl);
  const restBody = await send(agent, base, rest);
  const listBody = await send(agent, base, gql(Q_LIST));
  const nestedBody = await send(agent, base, gql(Q_NESTED));
  agent.destroy();
  const nested = JSON.parse(nestedBody.body) as { errors?: unknown; data: { projects: { items: Array<{ grants: unknown[] }> } } };
  const listed = JSON.parse(listBody.body) as { errors?: unknown; data: { projects: { items: unknown[] } } };
  if (nested.errors || listed.errors) throw new Error(`GraphQL answered errors: ${nestedBody.body.slice(0, 300)}`);
  const grantCount = nested.data.projects.items.reduce((n, p) => n + p.grants.length, 0);
  if (listed.data.projects.items.length !== seed.visible || nested.data.projects.items.length !== seed.visible)
    throw new Error(`expected ${seed.visible} projects`);

  const rounds = opts.rounds ?? 3;
  const durationMs = (opts.seconds ?? 3) * 1000;
  const runs: Record<'rest' | 'list' | 'nested', LoadResult[]> = { rest: [], list: [], nested: [] };
  const only = opts.only ?? ['rest', 'list', 'nested'];
  const requests = { rest, list: gql(Q_LIST), nested: gql(Q_NESTED) };
  for (let r = 0; r < rounds; r++) {
    for (const k of only) runs[k].push(await load(k, { baseUrl: env.baseUrl, request: requests[k], connections: 8, durationMs }));
  }
  for (const k of ['rest', 'list', 'nested'] as const)
    if (!runs[k].length) runs[k].push(await load(k, { baseUrl: env.baseUrl, request: requests[k], connections: 1, amount: 5 }));
  const restIdle = await load('GET /api/projects, alone', { baseUrl: env.baseUrl, request: rest, connections: 1, amount: 60 });
  const nestedIdle = await load('GraphQL nested, alone', { baseUrl: env.baseUrl, request: gql(Q_NESTED), connections: 1, amount: 60 });

  const schema = await buildGraphqlSchema();
  const run = (query: string) => async () => {
    const contextValue = await createContext(services, `Bearer ${seed.readerToken}`, '127.0.0.1');
    const result = await execute({ schema, document: parse(query), contextValue });
    if (result.errors) throw new Error(String(result.errors[0]));
  };
  return {
    seed: { visible: seed.visible, grantsOnVisible: grantCount },
    rest: merge(runs.rest),
    list: merge(runs.list),
    nested: merge(runs.nested),
    restIdle,
    nestedIdle,
    statements: {
      rest: await statements(orm, async () => {
        await services.tokens.authenticate(seed.readerToken);
        await services.projects.list(seed.reader);
      }),
      list: await statements(orm, run(Q_LIST)),
      nested: await statements(orm, run(Q_NESTED)),
    },
    bytes: { rest: restBody.body.length, list: listBody.body.length, nested: nestedBody.body.length },
  };
}

/** The median of the rounds' medians (and p95s), summed throughput: interleaved rounds, one figure each. */
function merge(rs: LoadResult[]): LoadResult {
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    name: rs[0].name,
    medianMs: mid(rs.map((r) => r.medianMs)),
    p95Ms: mid(rs.map((r) => r.p95Ms)),
    p99Ms: mid(rs.map((r) => r.p99Ms)),
    rps: Math.round(rs.reduce((n, r) => n + r.rps, 0) / rs.length),
    requests: rs.reduce((n, r) => n + r.requests, 0),
    errors: rs.reduce((n, r) => n + r.errors, 0),
    non2xx: rs.reduce((n, r) => n + r.non2xx, 0),
  };
}

async function main(): Promise<void> {
  const arg = (name: string, d: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : d;
  };
  // --cpu-prof DIR: the server writes a V8 CPU profile there when it stops
  const prof = process.argv.indexOf('--cpu-prof');
  const env = await startBenchEnv({}, prof > 0 ? ['--cpu-prof', `--cpu-prof-dir=${process.argv[prof + 1]}`] : []);
  try {
    const { orm, services } = await benchServices(env);
    try {
      const o = process.argv.indexOf('--only');
      const only = o > 0 ? (process.argv[o + 1].split(',') as Array<'rest' | 'list' | 'nested'>) : undefined;
      const r = await benchGraphql(env, orm, services, { rounds: arg('rounds', 3), seconds: arg('seconds', 3), only });
      writeFileSync(path.join(ROOT, 'bench/results/graphql.json'), JSON.stringify(r, null, 2) + '\n');
      const f = (l: LoadResult) => `median ${l.medianMs} ms, p95 ${l.p95Ms}, ${l.rps} req/s`;
      process.stdout.write(
        [
          `seed: ${r.seed.visible} projects, ${r.seed.grantsOnVisible} grants`,
          `GET /api/projects            ${f(r.rest)}  (${r.statements.rest} statements)`,
          `GraphQL, REST's fields       ${f(r.list)}  (${r.statements.list} statements)  ${(r.list.medianMs / r.rest.medianMs).toFixed(2)}×`,
          `GraphQL + grants             ${f(r.nested)}  (${r.statements.nested} statements)  ${(r.nested.medianMs / r.rest.medianMs).toFixed(2)}×`,
          `alone: REST ${r.restIdle.medianMs} ms, nested ${r.nestedIdle.medianMs} ms`,
        ].join('\n') + '\n',
      );
    } finally {
      await orm.close(true);
    }
  } finally {
    await env.close();
  }
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
