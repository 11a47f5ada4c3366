import pg from 'pg';
import { factories } from '../support/factories';
import { gql } from '../support/graphql';
import { client } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

/** Issue 13 item 7: visibility and owner changes are audited; cascaded grant deletions come from the rows deleted. */
let t: TestApp;
let f: ReturnType<typeof factories>;
let admin: Awaited<ReturnType<ReturnType<typeof factories>['makeUser']>>;

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
  await f.superadmin();
  admin = await f.makeUser({ platformRole: 'admin' });
});
afterAll(async () => t?.close());

const as = (u: { token: string }) => client(t.baseUrl, u.token);
const log = async (query: string) => (await as(admin).get(`/api/audit-log${query}`)).body;

describe('project access changes', () => {
  it('REST: isPrivate changes write project_visibility_changed; an unchanged value writes nothing', async () => {
    const p = await f.makeProject({ owner: admin });
    expect((await as(admin).patch(`/api/projects/${p.id}`, { isPrivate: false })).status).toBe(200);
    expect((await as(admin).patch(`/api/projects/${p.id}`, { isPrivate: false, name: 'Renamed' })).status).toBe(200);
    expect((await as(admin).patch(`/api/projects/${p.id}`, { isPrivate: true })).status).toBe(200);
    const res = await log(`?projectId=${p.id}&action=project_visibility_changed`);
    expect(res.total).toBe(2);
    expect(res.entries.map((e: any) => e.metadata)).toEqual([
      { tier: 'use', isPrivate: true, previousIsPrivate: false },
      { tier: 'use', isPrivate: false, previousIsPrivate: true },
    ]);
    expect(res.entries[0]).toMatchObject({ actorId: admin.id, projectId: p.id, targetType: 'user', targetId: admin.id });
  });

  it('GraphQL: an owner change writes project_owner_changed (same service), filterable by the enum', async () => {
    const p = await f.makeProject({ owner: admin });
    const next = await f.makeUser({ platformRole: 'admin' });
    const r = await gql(t.baseUrl, `mutation($id: ID!, $input: UpdateProjectInput!) { updateProject(id: $id, input: $input) { id } }`, {
      token: admin.token,
      variables: { id: p.id, input: { ownerId: next.id, isPrivate: false } },
    });
    expect(r.errors).toBeUndefined();
    const q = await gql(
      t.baseUrl,
      `query($f: AuditLogQuery) { auditLog(filter: $f) { total items { action targetId metadata { tier previousOwnerId isPrivate } } } }`,
      {
        token: admin.token,
        variables: { f: { projectId: p.id, action: 'project_owner_changed' } },
      },
    );
    expect(q.errors).toBeUndefined();
    expect(q.data.auditLog.items).toEqual([
      { action: 'project_owner_changed', targetId: next.id, metadata: { tier: 'full', previousOwnerId: admin.id, isPrivate: null } },
    ]);
    const both = await log(`?projectId=${p.id}`);
    expect(both.entries.map((e: any) => e.action).sort()).toEqual(['project_owner_changed', 'project_visibility_changed']);
  });

  it('the audit-log filter accepts the new actions and still refuses unknown ones', async () => {
    expect((await as(admin).get('/api/audit-log?action=project_owner_changed')).status).toBe(200);
    const bad = await as(admin).get('/api/audit-log?action=project_renamed');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_failed');
  });
});

describe('cascaded grant deletions are recorded from the rows actually deleted', () => {
  /** A grant inserted by another transaction that commits only while the deletion is under way. */
  async function withGrantCommittedDuring(projectId: string, userId: string, deletion: () => Promise<{ status: number }>) {
    const c = new pg.Client({ connectionString: t.dbUrl });
    await c.connect();
    try {
      await c.query('begin');
      await c.query(`insert into project_grants (project_id, user_id, tier) values ($1, $2, 'edit')`, [projectId, userId]);
      const pending = deletion();
      await new Promise((r) => setTimeout(r, 500)); // the deletion is now waiting on our transaction
      await c.query('commit');
      expect((await pending).status).toBe(200);
    } finally {
      await c.end();
    }
  }

  it('project deletion: a grant committed during the deletion still gets its grant_deleted entry', async () => {
    const p = await f.makeProject({ owner: admin });
    const early = await f.makeUser();
    const late = await f.makeUser();
    await as(admin).post(`/api/projects/${p.id}/grants`, { targetType: 'user', targetId: early.id, tier: 'use' });
    await withGrantCommittedDuring(p.id, late.id, () => as(admin).delete(`/api/projects/${p.id}`));
    const deleted = (await log(`?projectId=${p.id}&action=grant_deleted`)).entries;
    expect(deleted.map((e: any) => [e.targetId, e.metadata]).sort()).toEqual(
      [
        [early.id, { tier: 'use', reason: 'project_deleted' }],
        [late.id, { tier: 'edit', reason: 'project_deleted' }],
      ].sort(),
    );
  });

  it('user deletion: the same', async () => {
    const p1 = await f.makeProject({ owner: admin });
    const p2 = await f.makeProject({ owner: admin });
    const u = await f.makeUser();
    await as(admin).post(`/api/projects/${p1.id}/grants`, { targetType: 'user', targetId: u.id, tier: 'use' });
    await withGrantCommittedDuring(p2.id, u.id, () => as(admin).delete(`/api/users/${u.id}`));
    const entries = (await log(`?action=grant_deleted`)).entries.filter((e: any) => e.targetId === u.id);
    expect(entries.map((e: any) => [e.projectId, e.metadata.reason]).sort()).toEqual(
      [
        [p1.id, 'user_deleted'],
        [p2.id, 'user_deleted'],
      ].sort(),
    );
  });
});
