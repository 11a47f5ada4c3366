import { factories } from '../support/factories';
import { api } from '../support/http';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { answerOf, getSse, namesOf, postSse, SseResult } from '../support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';

/** Issue 38 part 3: every chat event carries an `id`; a dropped client resumes with `Last-Event-ID`. */
const DELTAS = Array.from({ length: 10 }, (_, i) => `part${i} `);

let stub: OpenAiStub;
let A: TestApp;
let f: ReturnType<typeof factories>;

beforeAll(async () => {
  stub = await startOpenAiStub({ deltas: DELTAS, deltaDelayMs: 40 });
  A = await createTestApp({ env: { LLM_BASE_URL: stub.url, LLM_MODEL: 'stub-model' } });
  f = factories(A.orm, A.services);
});
afterAll(async () => {
  await A?.close();
  await stub?.close();
});

/** A user with `use` on a project of their own owner. */
async function asker() {
  const user = await f.makeUser();
  const project = await f.makeProject();
  await f.makeGrant({ project, user, tier: 'use' });
  return { user, project };
}

const metaOf = (r: SseResult) => r.events.find((e) => e.event === 'meta')!.data as { messageId: string; conversationId: string };
const resume = (token: string, messageId: string, lastEventId?: string) =>
  getSse(A.baseUrl, `/api/chat/messages/${messageId}/stream`, {
    token,
    headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId },
  });

describe('GET /api/chat/messages/:messageId/stream', () => {
  it('requires authentication', async () => {
    const { user, project } = await asker();
    const r = await postSse(A.baseUrl, `/api/chat/projects/${project.id}`, { token: user.token, body: { message: 'q' } });
    const res = await api(A.baseUrl, 'GET', `/api/chat/messages/${metaOf(r).messageId}/stream`);
    expect(res.status).toBe(401);
  });

  it('every event of a chat stream carries an id, 1, 2, 3, … in order; the spec order is unchanged', async () => {
    const { user, project } = await asker();
    const r = await postSse(A.baseUrl, `/api/chat/projects/${project.id}`, { token: user.token, body: { message: 'q' } });
    expect(namesOf(r)).toEqual(['meta', 'sources', ...DELTAS.map(() => 'text'), 'done']);
    expect(r.events.map((e) => e.id)).toEqual(r.events.map((_, i) => String(i + 1)));
  });

  it('drop after three text events, resume with Last-Event-ID: the rest arrives and the text is whole', async () => {
    const { user, project } = await asker();
    const first = await postSse(A.baseUrl, `/api/chat/projects/${project.id}`, {
      token: user.token,
      body: { message: 'q' },
      stopWhen: (_e, all) => all.filter((x) => x.event === 'text').length === 3,
    });
    expect(first.aborted).toBe(true);
    const seen = first.events.at(-1)!.id!;
    const rest = await resume(user.token, metaOf(first).messageId, seen);
    expect(rest.status).toBe(200);
    expect(rest.events[0].id).toBe(String(Number(seen) + 1));
    expect(namesOf(rest)).toEqual([...DELTAS.slice(3).map(() => 'text'), 'done']);
    expect(answerOf(first) + answerOf(rest)).toBe(DELTAS.join(''));
    expect(rest.events.at(-1)!.data.messageId).toBe(metaOf(first).messageId);
    // nobody listened for most of it, yet the whole answer was generated and stored
    expect(stub.last().aborted).toBe(false);
    const conv = await api(A.baseUrl, 'GET', `/api/chat/conversations/${metaOf(first).conversationId}`, { token: user.token });
    expect(conv.body.conversation.messages[1]).toEqual(expect.objectContaining({ content: DELTAS.join(''), incomplete: false }));
  });

  it('without Last-Event-ID it replays the whole stream, also after it ended; after the last id, nothing', async () => {
    const { user, project } = await asker();
    const r = await postSse(A.baseUrl, `/api/chat/projects/${project.id}`, { token: user.token, body: { message: 'q' } });
    const all = await resume(user.token, metaOf(r).messageId);
    expect(all.events.map(({ event, data, id }) => ({ event, data, id }))).toEqual(
      r.events.map(({ event, data, id }) => ({ event, data, id })),
    );
    const none = await resume(user.token, metaOf(r).messageId, r.events.at(-1)!.id);
    expect(none.status).toBe(200);
    expect(none.events).toEqual([]);
  });

  it('is only for the caller who asked: anyone else gets 404, an unknown or malformed id 404', async () => {
    const { user, project } = await asker();
    const r = await postSse(A.baseUrl, `/api/chat/projects/${project.id}`, { token: user.token, body: { message: 'q' } });
    const other = await f.makeUser();
    await f.makeGrant({ project, user: other, tier: 'full' });
    const staff = await f.makeUser({ platformRole: 'admin' });
    for (const token of [other.token, staff.token]) {
      const res = await api(A.baseUrl, 'GET', `/api/chat/messages/${metaOf(r).messageId}/stream`, { token });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    expect((await api(A.baseUrl, 'GET', `/api/chat/messages/${crypto.randomUUID()}/stream`, { token: user.token })).status).toBe(404);
    expect((await api(A.baseUrl, 'GET', `/api/chat/messages/not-a-uuid/stream`, { token: user.token })).status).toBe(404);
  });

  it('the caller who lost `use` on the project gets 403', async () => {
    const user = await f.makeUser();
    const project = await f.makeProject();
    const grant = await f.makeGrant({ project, user, tier: 'use' });
    const r = await postSse(A.baseUrl, `/api/chat/projects/${project.id}`, { token: user.token, body: { message: 'q' } });
    await A.orm.em.fork().nativeDelete('ProjectGrant', { id: grant.id });
    const res = await api(A.baseUrl, 'GET', `/api/chat/messages/${metaOf(r).messageId}/stream`, { token: user.token });
    expect(res.status).toBe(403);
  });

  it('a Last-Event-ID that is not an event id → 400 validation_failed', async () => {
    const { user, project } = await asker();
    const r = await postSse(A.baseUrl, `/api/chat/projects/${project.id}`, { token: user.token, body: { message: 'q' } });
    const res = await api(A.baseUrl, 'GET', `/api/chat/messages/${metaOf(r).messageId}/stream`, {
      token: user.token,
      headers: { 'last-event-id': 'abc' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      expect.objectContaining({ error: 'validation_failed', details: [expect.objectContaining({ field: 'Last-Event-ID' })] }),
    );
  });
});

describe('POST /api/chat/messages/:messageId/stop', () => {
  it("stops the caller's answer where it is generated: the upstream is aborted, what arrived is stored as incomplete, the stream ends", async () => {
    const { user, project } = await asker();
    // a slow answer (30 deltas, 200 ms apart): the stop arrives long before its end
    const slow = Array.from({ length: 30 }, (_, i) => `slow${i} `);
    stub.once({ deltas: slow, deltaDelayMs: 200 });
    const first = await postSse(A.baseUrl, `/api/chat/projects/${project.id}`, {
      token: user.token,
      body: { message: 'q' },
      stopWhen: (_e, all) => all.filter((x) => x.event === 'text').length === 3,
    });
    const { messageId, conversationId } = metaOf(first);
    // only the caller who asked may stop it
    const other = await f.makeUser();
    expect((await api(A.baseUrl, 'POST', `/api/chat/messages/${messageId}/stop`, { token: other.token })).status).toBe(404);
    expect((await api(A.baseUrl, 'POST', `/api/chat/messages/${messageId}/stop`)).status).toBe(401);
    const stop = await api(A.baseUrl, 'POST', `/api/chat/messages/${messageId}/stop`, { token: user.token });
    expect(stop.status).toBe(202);
    expect(stop.body).toEqual({ messageId, stopping: true });
    // the recorded stream ends without the rest of the answer
    const replay = await resume(user.token, messageId);
    expect(replay.status).toBe(200);
    expect(answerOf(replay).length).toBeGreaterThan(0);
    expect(answerOf(replay).length).toBeLessThan(slow.join('').length);
    await stub.waitFor(() => stub.last().aborted === true, 10_000);
    const conv = await api(A.baseUrl, 'GET', `/api/chat/conversations/${conversationId}`, { token: user.token });
    expect(conv.body.conversation.messages[1]).toEqual(expect.objectContaining({ incomplete: true }));
    expect(conv.body.conversation.messages[1].content.length).toBeLessThan(slow.join('').length);
  });
});
