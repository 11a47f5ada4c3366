import { randomUUID } from 'node:crypto';
import { createTestApp, TestApp } from '../support/test-app';
import { api, client } from '../support/http';
import { factories } from '../support/factories';
import { projectFixtures } from '../support/project-fixtures';
import { expectShape } from '../support/openapi-validator';
import { gql } from '../support/graphql';

let t: TestApp;
let f: ReturnType<typeof factories>;
let fx: ReturnType<typeof projectFixtures>;
let admin: Awaited<ReturnType<ReturnType<typeof factories>['makeUser']>>;

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
  fx = projectFixtures(t.orm);
  admin = await f.makeUser({ platformRole: 'admin' });
});
afterAll(async () => t?.close());

const as = (u: { token: string }) => client(t.baseUrl, u.token);
const grant = (caller: { token: string }, projectId: string, targetType: string, targetId: string, tier: string) =>
  as(caller).post(`/api/projects/${projectId}/grants`, { targetType, targetId, tier });
const log = (query: string, caller: { token: string } = admin) => as(caller).get(`/api/audit-log${query}`);

describe('audit entries written by the grant endpoints', () => {
  it('create, update (with previousTier on change) and delete each write one entry', async () => {
    const p = await f.makeProject();
    const target = await f.makeUser();
    const created = await grant(admin, p.id, 'user', target.id, 'use');
    await grant(admin, p.id, 'user', target.id, 'use'); // same tier: an update without a change
    await grant(admin, p.id, 'user', target.id, 'full');
    await as(admin).delete(`/api/projects/${p.id}/grants/${created.body.grant.id}`);
    const res = await log(`?projectId=${p.id}`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(4);
    // newest first
    expect(res.body.entries.map((e: any) => [e.action, e.metadata])).toEqual([
      ['grant_deleted', { tier: 'full' }],
      ['grant_updated', { tier: 'full', previousTier: 'use' }],
      ['grant_updated', { tier: 'use' }],
      ['grant_created', { tier: 'use' }],
    ]);
    const e = res.body.entries[0];
    expectShape(e, 'AuditEntry');
    expect(e).toMatchObject({ actorId: admin.id, projectId: p.id, targetType: 'user', targetId: target.id });
    expect(new Date(e.createdAt).toISOString()).toBe(e.createdAt);
  });

  it('records group and department targets with their type', async () => {
    const p = await f.makeProject();
    const dept = await f.makeDepartment();
    const group = await f.makeGroup({ department: dept });
    await grant(admin, p.id, 'group', group.id, 'edit');
    await grant(admin, p.id, 'department', dept.id, 'use');
    const entries = (await log(`?projectId=${p.id}`)).body.entries;
    expect(entries.map((e: any) => [e.targetType, e.targetId]).sort()).toEqual(
      [
        ['department', dept.id],
        ['group', group.id],
      ].sort(),
    );
  });

  it('refused and invalid grant requests write nothing', async () => {
    const p = await f.makeProject();
    const stranger = await f.makeUser();
    expect((await grant(stranger, p.id, 'user', stranger.id, 'full')).status).toBe(403);
    expect((await grant(admin, p.id, 'user', randomUUID(), 'use')).status).toBe(404);
    expect((await grant(admin, p.id, 'user', stranger.id, 'owner')).status).toBe(400);
    expect((await log(`?projectId=${p.id}`)).body.total).toBe(0);
  });

  it('is in the same transaction as the change: a grant change failing at commit leaves no entry', async () => {
    const p = await f.makeProject();
    const target = await f.makeUser();
    // a deferred constraint trigger fails the transaction at COMMIT, after the audit row was inserted
    await fx.exec(`create or replace function fail_grant_commit() returns trigger language plpgsql as $$
      begin if new.user_id = '${target.id}' then raise exception 'injected commit failure'; end if; return new; end $$`);
    await fx.exec(`create constraint trigger fail_grant_commit after insert or update on project_grants
      deferrable initially deferred for each row execute function fail_grant_commit()`);
    try {
      const res = await grant(admin, p.id, 'user', target.id, 'edit');
      expect(res.status).toBe(500);
    } finally {
      await fx.exec(`drop trigger fail_grant_commit on project_grants`);
    }
    expect(await fx.countRows('audit_entries', 'target_id', target.id)).toBe(0);
    expect(await fx.countRows('project_grants', 'user_id', target.id)).toBe(0);
    expect(await fx.countRows('project_members', 'user_id', target.id)).toBe(0);
  });

  it('and the other way round: a failing audit write undoes the grant change', async () => {
    const p = await f.makeProject();
    const target = await f.makeUser();
    const first = await grant(admin, p.id, 'user', target.id, 'use');
    expect(first.status).toBe(201);
    await fx.exec(`create or replace function fail_audit() returns trigger language plpgsql as $$
      begin if new.target_id = '${target.id}' then raise exception 'injected audit failure'; end if; return new; end $$`);
    await fx.exec(`create trigger fail_audit before insert on audit_entries for each row execute function fail_audit()`);
    try {
      expect((await grant(admin, p.id, 'user', target.id, 'full')).status).toBe(500);
      expect((await as(admin).delete(`/api/projects/${p.id}/grants/${first.body.grant.id}`)).status).toBe(500);
    } finally {
      await fx.exec(`drop trigger fail_audit on audit_entries`);
    }
    const [row] = await fx.exec<{ tier: string }>(`select tier from project_grants where id = ?`, [first.body.grant.id]);
    expect(row.tier).toBe('use');
  });
});

describe('GET /api/audit-log', () => {
  it('requires authentication', async () => {
    expect((await api(t.baseUrl, 'GET', '/api/audit-log')).status).toBe(401);
  });

  it('is admin/superadmin only', async () => {
    const dept = await f.makeDepartment();
    for (const c of [
      await f.makeUser(),
      await f.makeUser({ platformRole: 'engineer' }),
      await f.makeUser({ orgPosition: 'manager', department: dept }),
      await f.ceo(),
    ]) {
      expect((await log('', c)).status).toBe(403);
    }
    expect((await log('', await f.superadmin())).status).toBe(200);
  });

  it('filters by project, actor, action and time range; pages with limit/offset and reports the total', async () => {
    const p = await f.makeProject();
    const other = await f.makeProject();
    const secondAdmin = await f.makeUser({ platformRole: 'admin' });
    const users = [await f.makeUser(), await f.makeUser(), await f.makeUser()];
    for (const u of users) await grant(admin, p.id, 'user', u.id, 'use');
    await grant(secondAdmin, p.id, 'user', users[0].id, 'edit');
    await grant(secondAdmin, other.id, 'user', users[0].id, 'edit');
    const all = await log(`?projectId=${p.id}`);
    expect(all.body.total).toBe(4);

    const byActor = await log(`?projectId=${p.id}&actorId=${secondAdmin.id}`);
    expect(byActor.body.total).toBe(1);
    expect(byActor.body.entries[0]).toMatchObject({ action: 'grant_updated', metadata: { tier: 'edit', previousTier: 'use' } });
    expect((await log(`?actorId=${secondAdmin.id}`)).body.total).toBe(2);
    expect((await log(`?projectId=${p.id}&action=grant_created`)).body.total).toBe(3);
    expect((await log(`?projectId=${p.id}&action=grant_deleted`)).body.total).toBe(0);

    const page1 = await log(`?projectId=${p.id}&limit=3&offset=0`);
    const page2 = await log(`?projectId=${p.id}&limit=3&offset=3`);
    expect(page1.body.entries).toHaveLength(3);
    expect(page2.body.entries).toHaveLength(1);
    expect(page1.body.total).toBe(4);
    const ids = [...page1.body.entries, ...page2.body.entries].map((e: any) => e.id);
    expect(ids).toEqual(all.body.entries.map((e: any) => e.id));
    const times = all.body.entries.map((e: any) => Date.parse(e.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const newest = all.body.entries[0].createdAt;
    const oldest = all.body.entries[3].createdAt;
    expect((await log(`?projectId=${p.id}&from=${encodeURIComponent(newest)}`)).body.total).toBe(1);
    expect((await log(`?projectId=${p.id}&to=${encodeURIComponent(oldest)}`)).body.total).toBe(1);
    expect((await log(`?projectId=${p.id}&from=${encodeURIComponent(oldest)}&to=${encodeURIComponent(newest)}`)).body.total).toBe(4);
    expect((await log(`?projectId=${p.id}&from=2999-01-01T00:00:00Z`)).body.total).toBe(0);
  });

  it("names each entry's actor, project and target as they are now (null once deleted), the same through GraphQL", async () => {
    const p = await f.makeProject({ name: 'Named project' });
    const dept = await f.makeDepartment({ name: 'Named department' });
    const group = await f.makeGroup({ name: 'Named group', department: dept });
    const person = await f.makeUser({ name: 'Named person' });
    const leaver = await f.makeUser({ name: 'Soon gone' });
    await grant(admin, p.id, 'department', dept.id, 'use');
    await grant(admin, p.id, 'group', group.id, 'edit');
    await grant(admin, p.id, 'user', person.id, 'full');
    await grant(admin, p.id, 'user', leaver.id, 'use');
    expect((await as(admin).delete(`/api/users/${leaver.id}`)).status).toBe(200);
    const res = await log(`?projectId=${p.id}&action=grant_created`);
    const named = res.body.entries.map((e: any) => [e.targetType, e.actorName, e.projectName, e.targetName]);
    expect(named).toEqual([
      ['user', admin.name, 'Named project', null],
      ['user', admin.name, 'Named project', 'Named person'],
      ['group', admin.name, 'Named project', 'Named group'],
      ['department', admin.name, 'Named project', 'Named department'],
    ]);
    for (const e of res.body.entries) expectShape(e, 'AuditEntry');
    const q = await gql(
      t.baseUrl,
      `query($p: ID!) { auditLog(filter: { projectId: $p, action: "grant_created" }) { total items { id actorName projectName targetName } } }`,
      { token: admin.token, variables: { p: p.id } },
    );
    expect(q.data.auditLog).toEqual({
      total: 4,
      items: res.body.entries.map((e: any) => ({ id: e.id, actorName: e.actorName, projectName: e.projectName, targetName: e.targetName })),
    });
    // a page past the end still says how many match
    expect((await log(`?projectId=${p.id}&action=grant_created&offset=10`)).body).toEqual({ entries: [], total: 4 });
  });

  it('defaults to 50 entries', async () => {
    const p = await f.makeProject();
    const many = await Promise.all(Array.from({ length: 55 }, () => f.makeUser()));
    for (const u of many) await grant(admin, p.id, 'user', u.id, 'use');
    const res = await log(`?projectId=${p.id}`);
    expect(res.body.entries).toHaveLength(50);
    expect(res.body.total).toBe(55);
  });

  it.each([
    ['a malformed projectId', '?projectId=abc'],
    ['a malformed actorId', '?actorId=1'],
    ['an unknown action', '?action=grant_exploded'],
    ['a malformed from', '?from=yesterday'],
    ['to before from', '?from=2024-02-01T00:00:00Z&to=2024-01-01T00:00:00Z'],
    ['limit 0', '?limit=0'],
    ['limit above 200', '?limit=201'],
    ['a non-integer limit', '?limit=ten'],
    ['a negative offset', '?offset=-1'],
    ['an unknown parameter', '?sort=asc'],
    ['a repeated parameter', '?action=grant_created&action=grant_deleted'],
  ])('rejects %s with 400 validation_failed', async (_label, q) => {
    const res = await log(q);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });
});
