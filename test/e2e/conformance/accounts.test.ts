/**
 * Spec conformance, black box (users: delete and the security rules). Each describe works on its own
 * app and organisation (test/support/conformance-world.ts); the tests that change a user's password or
 * status have one of their own.
 */
import { api } from '../../support/http';
import { expectError } from '../../support/conformance-shapes';
import { useWorld } from '../../support/conformance-world';

jest.setTimeout(120_000);

describe('users: delete', () => {
  const w = useWorld('department');

  it('DELETE /users/:id: {success, id}; the superadmin and oneself are refused', async () => {
    const { rootId, admin, adminId } = w;
    const u = await admin.post('/api/users', {
      email: 'temp@example.com',
      name: 'Temp',
      password: 'temp-password',
      platformRole: 'none',
      orgPosition: 'member',
    });
    const res = await admin.delete(`/api/users/${u.body.user.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: u.body.user.id });
    expectError(await admin.delete(`/api/users/${u.body.user.id}`), 404);
    expectError(await admin.delete(`/api/users/${rootId}`), 403);
    expectError(await admin.delete(`/api/users/${adminId}`), 403);
  });

  it('deleting a user removes their grants and records each one as grant_deleted', async () => {
    const { admin, adminId } = w;
    const p = (await admin.post('/api/projects', { name: 'Ephemeral' })).body.project;
    const u = (
      await admin.post('/api/users', {
        email: 'leaver@example.com',
        name: 'Leaver',
        password: 'leaver-password',
        platformRole: 'none',
        orgPosition: 'member',
      })
    ).body.user;
    expect((await admin.post(`/api/projects/${p.id}/grants`, { targetType: 'user', targetId: u.id, tier: 'edit' })).status).toBe(201);
    expect((await admin.delete(`/api/users/${u.id}`)).status).toBe(200);
    expect((await admin.get(`/api/projects/${p.id}/grants`)).body.grants).toEqual([]);
    const log = await admin.get(`/api/audit-log?projectId=${p.id}&action=grant_deleted`);
    expect(log.body.total).toBe(1);
    expect(log.body.entries[0]).toEqual(expect.objectContaining({ actorId: adminId, targetType: 'user', targetId: u.id }));
    expect(log.body.entries[0].metadata.tier).toBe('edit');
  });
});

describe('users: password change', () => {
  const w = useWorld('people');

  it("changing a password revokes the user's refresh tokens; other changes do not", async () => {
    const { t, admin, manager, login } = w;
    const session = (await login('mgr@example.com', 'manager-password')).body;
    const refresh = (token: string) => api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: token } });
    // a rename keeps the session
    expect((await admin.patch(`/api/users/${manager.id}`, { name: 'Mária Renamed' })).status).toBe(200);
    const rotated = await refresh(session.refreshToken);
    expect(rotated.status).toBe(200);
    // a refused change (409) revokes nothing
    expectError(await admin.patch(`/api/users/${manager.id}`, { password: 'brand-new-password', orgPosition: 'ceo' }), 409, 'ceo_exists');
    const stillValid = await refresh(rotated.body.refreshToken);
    expect(stillValid.status).toBe(200);
    // the password change does
    expect((await admin.patch(`/api/users/${manager.id}`, { password: 'brand-new-password' })).status).toBe(200);
    expectError(await refresh(stillValid.body.refreshToken), 401, 'unauthorized');
    expect((await login('mgr@example.com', 'manager-password')).status).toBe(401);
    expect((await login('mgr@example.com', 'brand-new-password')).status).toBe(200);
  });
});

describe('users: deactivation', () => {
  const w = useWorld('people');

  it('setting a user inactive revokes their refresh tokens: reactivation does not revive old sessions', async () => {
    const { t, admin, memberUser, login } = w;
    const session = (await login('member@example.com', 'member-password')).body;
    expect((await admin.patch(`/api/users/${memberUser.id}`, { status: 'inactive' })).status).toBe(200);
    expectError(await login('member@example.com', 'member-password'), 401, 'Invalid email or password');
    expect((await admin.patch(`/api/users/${memberUser.id}`, { status: 'active' })).status).toBe(200);
    expectError(await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: session.refreshToken } }), 401, 'unauthorized');
    expect((await login('member@example.com', 'member-password')).status).toBe(200);
  });
});
