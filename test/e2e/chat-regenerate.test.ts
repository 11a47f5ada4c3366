import { chatFactories, factories } from '../support/factories';
import { codes, wsClient, wsCollect } from '../support/graphql';
import { client } from '../support/http';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { answerOf, postSse } from '../support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Regenerate: a question sent with `replaces` (the conversation's last answer) takes the place of
 * that exchange, so the conversation keeps one exchange with the new answer, and the replaced
 * answer's feedback goes with it. REST (SSE) and GraphQL (the chat subscription) alike.
 */
let t: TestApp;
let stub: OpenAiStub;
let f: ReturnType<typeof factories>;

beforeAll(async () => {
  stub = await startOpenAiStub({ deltas: ['First ', 'answer.'] });
  t = await createTestApp();
  f = factories(t.orm, t.services);
  await chatFactories(t.orm, t.services).makeProvider({ baseUrl: stub.url, slug: 'stub', models: ['stub-model'] });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await stub?.close();
});
beforeEach(() => stub.reset());

async function asker() {
  const project = await f.makeProject();
  const user = await f.makeUser();
  await f.makeGrant({ project, user, tier: 'use' });
  return { project, user };
}

const ask = (token: string, projectId: string, body: Record<string, unknown>) =>
  postSse(t.baseUrl, `/api/chat/projects/${projectId}`, { token, body });

const metaOf = (r: Awaited<ReturnType<typeof ask>>) =>
  r.events.find((e) => e.event === 'meta')!.data as { conversationId: string; messageId: string };

describe('regenerating the last answer', () => {
  it('replaces the exchange: after it the conversation holds one question and the new answer; its feedback is gone', async () => {
    const { project, user } = await asker();
    const first = await ask(user.token, project.id, { message: 'How long is the warranty?' });
    const { conversationId, messageId } = metaOf(first);
    expect(answerOf(first)).toBe('First answer.');
    const c = client(t.baseUrl, user.token);
    expect((await c.post(`/api/chat/messages/${messageId}/feedback`, { rating: 'down', comment: 'vague' })).status).toBe(200);

    stub.once({ deltas: ['A better ', 'answer.'] });
    const again = await ask(user.token, project.id, { message: 'How long is the warranty?', conversationId, replaces: messageId });
    expect(again.status).toBe(200);
    expect(answerOf(again)).toBe('A better answer.');
    expect(metaOf(again).conversationId).toBe(conversationId);
    // the model was not shown the replaced exchange as history
    expect(
      stub
        .last()
        .body.messages.map((m: { content: string }) => m.content)
        .join('\n'),
    ).not.toContain('First answer.');

    const read = (await c.get(`/api/chat/conversations/${conversationId}`)).body.conversation;
    expect(read.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'How long is the warranty?'],
      ['assistant', 'A better answer.'],
    ]);
    expect((await c.get(`/api/chat/conversations/${conversationId}/feedback`)).body.feedback).toEqual([]);
    const admin = await f.makeUser({ platformRole: 'admin' });
    expect((await client(t.baseUrl, admin.token).get(`/api/projects/${project.id}/feedback`)).body.total).toBe(0);
  });

  it('works without conversationId (the answer names its conversation), and only on the last answer', async () => {
    const { project, user } = await asker();
    const first = await ask(user.token, project.id, { message: 'One?' });
    const { conversationId, messageId: firstAnswer } = metaOf(first);
    const second = await ask(user.token, project.id, { message: 'Two?', conversationId });
    const again = await ask(user.token, project.id, { message: 'Two, again?', replaces: metaOf(second).messageId });
    expect(again.status).toBe(200);
    const read = (await client(t.baseUrl, user.token).get(`/api/chat/conversations/${conversationId}`)).body.conversation;
    expect(read.messages.map((m: { content: string }) => m.content)).toEqual(['One?', 'First answer.', 'Two, again?', 'First answer.']);

    // an earlier answer: 409, nothing stored, nothing asked upstream
    const upstream = stub.requests.length;
    const late = await ask(user.token, project.id, { message: 'One?', replaces: firstAnswer });
    expect([late.status, late.body.error]).toEqual([409, 'not_last_answer']);
    expect(stub.requests.length).toBe(upstream);
    // a question is not an answer: 400 on `replaces`
    const question = read.messages[2].id as string;
    const bad = await ask(user.token, project.id, { message: 'x', replaces: question });
    expect([bad.status, bad.body.details]).toEqual([400, [{ field: 'replaces', message: expect.any(String) }]]);
    const malformed = await ask(user.token, project.id, { message: 'x', replaces: 'nope' });
    expect(malformed.status).toBe(400);
    expect((await client(t.baseUrl, user.token).get(`/api/chat/conversations/${conversationId}`)).body.conversation.messages).toHaveLength(
      4,
    );
  });

  it('of two regenerates of one answer at once, one streams and the other gets a JSON 409 (or 404) before any stream', async () => {
    const { project, user } = await asker();
    const { conversationId, messageId } = metaOf(await ask(user.token, project.id, { message: 'Which one?' }));
    const both = await Promise.all(
      ['Which one, A?', 'Which one, B?'].map((message) => ask(user.token, project.id, { message, conversationId, replaces: messageId })),
    );
    const [won, lost] = both[0].status === 200 ? both : [both[1], both[0]];
    expect(won.status).toBe(200);
    // the second to take the conversation's lock finds the answer replaced (409); one that checks
    // after the first has committed finds no such answer at all (404): a JSON error either way
    expect([
      [409, 'not_last_answer'],
      [404, 'not_found'],
    ]).toContainEqual([lost.status, lost.body?.error]);
    expect(won.events.map((e) => e.event)).not.toContain('error');
    expect(answerOf(won)).toBe('First answer.');
    const read = (await client(t.baseUrl, user.token).get(`/api/chat/conversations/${conversationId}`)).body.conversation;
    expect(read.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
  });

  it("refuses another user's answer (staff too), and an answer of another project, as the conversation's 404", async () => {
    const { project, user } = await asker();
    const { messageId } = metaOf(await ask(user.token, project.id, { message: 'Mine?' }));
    const other = await f.makeUser();
    await f.makeGrant({ project, user: other, tier: 'full' });
    const admin = await f.makeUser({ platformRole: 'admin' });
    for (const who of [other, admin]) {
      const r = await ask(who.token, project.id, { message: 'Theirs', replaces: messageId });
      expect([r.status, r.body.error]).toEqual([404, 'not_found']);
    }
    const elsewhere = await f.makeProject();
    await f.makeGrant({ project: elsewhere, user, tier: 'use' });
    expect((await ask(user.token, elsewhere.id, { message: 'Mine?', replaces: messageId })).status).toBe(404);
  });

  it('does the same through the GraphQL chat subscription', async () => {
    const { project, user } = await asker();
    const first = await ask(user.token, project.id, { message: 'Through GraphQL?' });
    const { conversationId, messageId } = metaOf(first);
    stub.once({ deltas: ['Regenerated ', 'here.'] });
    const CHAT = `subscription($p: ID!, $i: AskInput!) { chat(projectId: $p, input: $i) {
      __typename ... on ChatMeta { conversationId messageId } ... on ChatText { delta } ... on ChatError { message } } }`;
    const ws = wsClient(t.baseUrl, user.token);
    try {
      const results = await wsCollect(ws, CHAT, { p: project.id, i: { message: 'Through GraphQL?', replaces: messageId } });
      const events = results.map((r) => r.data?.chat).filter(Boolean);
      expect(events[0]).toMatchObject({ __typename: 'ChatMeta', conversationId });
      expect(
        events
          .filter((e) => e.__typename === 'ChatText')
          .map((e) => e.delta)
          .join(''),
      ).toBe('Regenerated here.');
      const late = await wsCollect(ws, CHAT, { p: project.id, i: { message: 'again', replaces: messageId } });
      expect(codes(late[0])).toEqual(['not_found']);
    } finally {
      await ws.dispose();
    }
    const read = (await client(t.baseUrl, user.token).get(`/api/chat/conversations/${conversationId}`)).body.conversation;
    expect(read.messages.map((m: { content: string }) => m.content)).toEqual(['Through GraphQL?', 'Regenerated here.']);
  });
});
