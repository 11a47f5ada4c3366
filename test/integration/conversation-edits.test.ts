import { randomUUID } from 'node:crypto';
import { createTestApp, TestApp } from '../support/test-app';
import { api, client } from '../support/http';
import { gql, codes } from '../support/graphql';
import { factories } from '../support/factories';
import type { Project, User } from '../../src/entities';

/**
 * Conversations renamed, deleted and searched, feedback on answers (DESIGN §10 "feedback"), the
 * default chat model and one user's effective access: REST and GraphQL alike.
 */
let t: TestApp;
let f: ReturnType<typeof factories>;

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
});
afterAll(async () => t?.close());

const as = (u: { token: string }) => client(t.baseUrl, u.token);

/** A conversation of `user`'s in `project`: a question and its answer, written as the chat pipeline writes them. */
async function conversationOf(user: User, project: Project, title: string, answer = 'An answer.') {
  const conn = t.orm.em.fork().getConnection();
  const [c] = await conn.execute(`insert into conversations (project_id, user_id, title) values (?, ?, ?) returning id`, [
    project.id,
    user.id,
    title,
  ]);
  const [q] = await conn.execute(`insert into messages (conversation_id, user_id, role, content) values (?, ?, 'user', ?) returning id`, [
    c.id,
    user.id,
    `Question about ${title}`,
  ]);
  const [a] = await conn.execute(
    `insert into messages (conversation_id, role, content, created_at) values (?, 'assistant', ?, now() + interval '1 second') returning id`,
    [c.id, answer],
  );
  return { id: c.id as string, questionId: q.id as string, answerId: a.id as string };
}

async function userWithProject() {
  const project = await f.makeProject();
  const user = await f.makeUser();
  await f.makeGrant({ project, user, tier: 'use' });
  return { project, user };
}

describe('PATCH and DELETE /api/chat/conversations/:id', () => {
  it('requires authentication', async () => {
    expect((await api(t.baseUrl, 'PATCH', `/api/chat/conversations/${randomUUID()}`, { body: { title: 'x' } })).status).toBe(401);
    expect((await api(t.baseUrl, 'DELETE', `/api/chat/conversations/${randomUUID()}`)).status).toBe(401);
  });

  it('refuses everyone but the author: another user gets 404, an admin who can read it 403; nothing changes', async () => {
    const { project, user } = await userWithProject();
    const c = await conversationOf(user, project, 'Warranty');
    const other = await f.makeUser();
    await f.makeGrant({ project, user: other, tier: 'full' });
    const admin = await f.makeUser({ platformRole: 'admin' });
    expect((await as(other).patch(`/api/chat/conversations/${c.id}`, { title: 'Mine' })).status).toBe(404);
    expect((await as(other).delete(`/api/chat/conversations/${c.id}`)).status).toBe(404);
    expect((await as(admin).patch(`/api/chat/conversations/${c.id}`, { title: 'Mine' })).status).toBe(403);
    expect((await as(admin).delete(`/api/chat/conversations/${c.id}`)).status).toBe(403);
    expect((await as(user).get(`/api/chat/conversations/${c.id}`)).body.conversation.title).toBe('Warranty');
  });

  it('renames (an empty title is a 400) and deletes with the messages', async () => {
    const { project, user } = await userWithProject();
    const c = await conversationOf(user, project, 'Warranty');
    const bad = await as(user).patch(`/api/chat/conversations/${c.id}`, { title: '   ' });
    expect(bad.status).toBe(400);
    const res = await as(user).patch(`/api/chat/conversations/${c.id}`, { title: '  Kettle warranty ' });
    expect(res.status).toBe(200);
    expect(res.body.conversation).toMatchObject({ id: c.id, title: 'Kettle warranty' });
    expect(res.body.conversation.messages).toHaveLength(2);
    const del = await as(user).delete(`/api/chat/conversations/${c.id}`);
    expect(del.body).toEqual({ success: true, id: c.id });
    expect((await as(user).get(`/api/chat/conversations/${c.id}`)).status).toBe(404);
    const [{ n }] = await t.orm.em
      .fork()
      .getConnection()
      .execute(`select count(*)::int as n from messages where conversation_id = ?`, [c.id]);
    expect(n).toBe(0);
  });

  it('does the same through GraphQL', async () => {
    const { project, user } = await userWithProject();
    const c = await conversationOf(user, project, 'Warranty');
    const stranger = await f.makeUser();
    const denied = await gql(t.baseUrl, `mutation($id: ID!) { deleteConversation(id: $id) { id } }`, {
      token: stranger.token,
      variables: { id: c.id },
    });
    expect(codes(denied)).toEqual(['not_found']);
    const renamed = await gql(t.baseUrl, `mutation($id: ID!) { renameConversation(id: $id, input: { title: "Cleaning" }) { id title } }`, {
      token: user.token,
      variables: { id: c.id },
    });
    expect(renamed.data.renameConversation).toEqual({ id: c.id, title: 'Cleaning' });
    const deleted = await gql(t.baseUrl, `mutation($id: ID!) { deleteConversation(id: $id) { success id } }`, {
      token: user.token,
      variables: { id: c.id },
    });
    expect(deleted.data.deleteConversation).toEqual({ success: true, id: c.id });
  });
});

describe('searching conversations', () => {
  it("finds the caller's own by title or by any message's text, case-insensitively, and % literally", async () => {
    const { project, user } = await userWithProject();
    const byTitle = await conversationOf(user, project, 'Kettle warranty');
    const byText = await conversationOf(user, project, 'Other', 'Descale monthly with citric acid, 100% safe.');
    await conversationOf(user, project, 'Shipping');
    const someoneElse = await f.makeUser();
    await f.makeGrant({ project, user: someoneElse, tier: 'use' });
    await conversationOf(someoneElse, project, 'Kettle warranty too');
    const ids = async (search: string) =>
      (
        (await as(user).get(`/api/chat/projects/${project.id}/conversations?search=${encodeURIComponent(search)}`)).body
          .conversations as Array<{
          id: string;
        }>
      ).map((c) => c.id);
    expect(await ids('KETTLE')).toEqual([byTitle.id]);
    expect(await ids('citric')).toEqual([byText.id]);
    expect(await ids('100%')).toEqual([byText.id]);
    expect(await ids('0%s')).toEqual([]);
    expect(await ids('')).toHaveLength(3);
    const g = await gql(t.baseUrl, `query($p: ID!) { conversations(projectId: $p, page: { search: "citric" }) { id } }`, {
      token: user.token,
      variables: { p: project.id },
    });
    expect(g.data.conversations).toEqual([{ id: byText.id }]);
  });
});

describe('feedback on answers', () => {
  it('requires authentication', async () => {
    expect((await api(t.baseUrl, 'POST', `/api/chat/messages/${randomUUID()}/feedback`, { body: { rating: 'up' } })).status).toBe(401);
    expect((await api(t.baseUrl, 'GET', `/api/projects/${randomUUID()}/feedback`)).status).toBe(401);
  });

  it("is the author's, on answers only; a bad rating is a 400", async () => {
    const { project, user } = await userWithProject();
    const c = await conversationOf(user, project, 'Warranty');
    const other = await f.makeUser();
    await f.makeGrant({ project, user: other, tier: 'use' });
    const admin = await f.makeUser({ platformRole: 'admin' });
    expect((await as(other).post(`/api/chat/messages/${c.answerId}/feedback`, { rating: 'up' })).status).toBe(404);
    expect((await as(admin).post(`/api/chat/messages/${c.answerId}/feedback`, { rating: 'up' })).status).toBe(403);
    expect((await as(user).post(`/api/chat/messages/${c.questionId}/feedback`, { rating: 'up' })).status).toBe(400);
    expect((await as(user).post(`/api/chat/messages/${c.answerId}/feedback`, { rating: 'meh' })).status).toBe(400);
    expect((await as(user).post(`/api/chat/messages/${randomUUID()}/feedback`, { rating: 'up' })).status).toBe(404);
    expect((await as(user).post(`/api/chat/messages/not-a-uuid/feedback`, { rating: 'up' })).status).toBe(404);
  });

  it('is stored, replaced when given again, and listed per project for admins only', async () => {
    const { project, user } = await userWithProject();
    const c = await conversationOf(user, project, 'Warranty', 'It lasts three years.');
    const first = await as(user).post(`/api/chat/messages/${c.answerId}/feedback`, { rating: 'up' });
    expect(first.status).toBe(200);
    expect(first.body.feedback).toMatchObject({ messageId: c.answerId, conversationId: c.id, rating: 'up', comment: null });
    const again = await as(user).post(`/api/chat/messages/${c.answerId}/feedback`, { rating: 'down', comment: 'It is two years.' });
    expect(again.body.feedback).toMatchObject({ id: first.body.feedback.id, rating: 'down', comment: 'It is two years.' });
    // the author reads their own feedback back with the conversation; someone else gets its 404
    const mine = await as(user).get(`/api/chat/conversations/${c.id}/feedback`);
    expect(mine.body.feedback).toEqual([expect.objectContaining({ messageId: c.answerId, rating: 'down' })]);
    const stranger = await f.makeUser();
    expect((await as(stranger).get(`/api/chat/conversations/${c.id}/feedback`)).status).toBe(404);
    const g0 = await gql(t.baseUrl, `query($c: ID!) { conversationFeedback(conversationId: $c) { messageId rating } }`, {
      token: user.token,
      variables: { c: c.id },
    });
    expect(g0.data.conversationFeedback).toEqual([{ messageId: c.answerId, rating: 'down' }]);

    const fullUser = await f.makeUser();
    await f.makeGrant({ project, user: fullUser, tier: 'full' });
    expect((await as(fullUser).get(`/api/projects/${project.id}/feedback`)).status).toBe(403);
    const admin = await f.makeUser({ platformRole: 'admin' });
    expect((await as(admin).get(`/api/projects/${randomUUID()}/feedback`)).status).toBe(404);
    const list = await as(admin).get(`/api/projects/${project.id}/feedback`);
    expect(list.body.total).toBe(1);
    expect(list.body.feedback[0]).toMatchObject({
      rating: 'down',
      comment: 'It is two years.',
      answer: 'It lasts three years.',
      user: { id: user.id, name: user.name, email: user.email },
    });
    expect((await as(admin).get(`/api/projects/${project.id}/feedback?rating=up`)).body).toEqual({ feedback: [], total: 0 });
    const g = await gql(t.baseUrl, `query($p: ID!) { projectFeedback(projectId: $p) { total items { id rating comment user { id } } } }`, {
      token: admin.token,
      variables: { p: project.id },
    });
    expect(g.data.projectFeedback).toEqual({
      total: 1,
      items: [{ id: first.body.feedback.id, rating: 'down', comment: 'It is two years.', user: { id: user.id } }],
    });
    const gave = await gql(t.baseUrl, `mutation($m: ID!) { giveFeedback(messageId: $m, input: { rating: "up" }) { rating comment } }`, {
      token: user.token,
      variables: { m: c.answerId },
    });
    expect(gave.data.giveFeedback).toEqual({ rating: 'up', comment: null });
  });
});

describe('GET /api/projects/:projectId/access/:userId', () => {
  it('needs full tier, and answers what the resolver gives, source included', async () => {
    const project = await f.makeProject();
    const dept = await f.makeDepartment();
    const member = await f.makeUser({ department: dept });
    await f.makeGrant({ project, department: dept, tier: 'edit' });
    const outsider = await f.makeUser();
    const user = await f.makeUser();
    await f.makeGrant({ project, user, tier: 'use' });
    expect((await api(t.baseUrl, 'GET', `/api/projects/${project.id}/access/${member.id}`)).status).toBe(401);
    expect((await as(user).get(`/api/projects/${project.id}/access/${member.id}`)).status).toBe(403);
    const admin = await f.makeUser({ platformRole: 'admin' });
    expect((await as(admin).get(`/api/projects/${project.id}/access/${member.id}`)).body.access).toEqual({
      projectId: project.id,
      userId: member.id,
      tier: 'edit',
      source: 'department',
    });
    expect((await as(admin).get(`/api/projects/${project.id}/access/${outsider.id}`)).body.access).toMatchObject({
      tier: null,
      source: null,
    });
    expect((await as(admin).get(`/api/projects/${project.id}/access/${randomUUID()}`)).status).toBe(404);
    const g = await gql(t.baseUrl, `query($p: ID!, $u: ID!) { effectiveAccess(projectId: $p, userId: $u) { tier source } }`, {
      token: admin.token,
      variables: { p: project.id, u: user.id },
    });
    expect(g.data.effectiveAccess).toEqual({ tier: 'use', source: 'user' });
  });
});

describe('GET /api/providers/chat-model', () => {
  it('names no model when chat has none, and the LLM_* model when only the environment gives one', async () => {
    const user = await f.makeUser();
    expect((await api(t.baseUrl, 'GET', '/api/providers/chat-model')).status).toBe(401);
    const none = await as(user).get('/api/providers/chat-model');
    expect(none.body).toEqual({ model: null });
    const env = await createTestApp({ env: { LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'env-model', LLM_API_KEY: 'k' } });
    try {
      const u = await factories(env.orm, env.services).makeUser();
      expect((await client(env.baseUrl, u.token).get('/api/providers/chat-model')).body).toEqual({
        model: { label: 'env-model', source: 'environment' },
      });
      const g = await gql(env.baseUrl, `{ chatModel { model { label source } } }`, { token: u.token });
      expect(g.data.chatModel).toEqual({ model: { label: 'env-model', source: 'environment' } });
    } finally {
      await env.close();
    }
  }, 60_000);
});
