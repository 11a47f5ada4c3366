import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, client } from '../support/http';
import { startOpenAiStub, OpenAiStub } from '../support/openai-stub';
import { freePort, startServerProcess } from '../support/processes';
import { postSse } from '../support/sse-client';

jest.setTimeout(180_000);

/**
 * `npm start` as operators run it: no DATABASE_URL, so the server owns an embedded PostgreSQL.
 * SIGTERM must stop the database LAST, after open streams have stored their partial answers.
 */
describe('graceful shutdown with the embedded database', () => {
  let dir: string;
  let stub: OpenAiStub;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'docqa-embedded-'));
    stub = await startOpenAiStub({ deltas: Array.from({ length: 300 }, (_, i) => `t${i} `), deltaDelayMs: 20 });
  });
  afterAll(async () => {
    await stub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an open stream ends with an error event, its partial answer is kept, and the database stops cleanly', async () => {
    const env = {
      DATA_DIR: dir,
      EMBEDDED_PG_PORT: String(await freePort()),
      BOOTSTRAP_SUPERADMIN_EMAIL: 'root@example.com',
      BOOTSTRAP_SUPERADMIN_PASSWORD: 'rootpassword',
      SHUTDOWN_GRACE_MS: '3000',
    };
    let server = await startServerProcess(env);
    const login = async () =>
      (await api(server.baseUrl, 'POST', '/api/auth/login', { body: { email: 'root@example.com', password: 'rootpassword' } })).body
        .accessToken as string;
    const token = await login();
    const c = client(server.baseUrl, token);
    expect(
      (
        await c.post('/api/providers', {
          name: 'Stub',
          slug: 'stub',
          type: 'custom',
          baseUrl: stub.url,
          apiKey: 'sk-test-1234',
          models: ['m'],
        })
      ).status,
    ).toBe(201);
    const projectId = (await c.post('/api/projects', { name: 'P', isPrivate: false })).body.project.id;

    const before = stub.requests.length;
    const streaming = postSse(server.baseUrl, `/api/chat/projects/${projectId}`, { token, body: { message: 'a long answer please' } });
    await stub.waitFor(() => stub.requests.length > before && stub.requests[before].firstDeltaAt !== undefined, 30_000);
    await new Promise((r) => setTimeout(r, 200));
    server.child.kill('SIGTERM');
    const result = await streaming;
    expect(await server.exited).toBe(0);
    const names = result.events.map((e) => e.event);
    expect(names[names.length - 1]).toBe('error');
    expect(result.events[names.length - 1].data.message).toBe('SERVER_SHUTTING_DOWN');
    // the database was still there for every part of the shutdown
    expect(server.output()).not.toMatch(/terminating connection|connection error|job queue error|listener connection lost/);

    server = await startServerProcess(env);
    try {
      const conv = await client(server.baseUrl, await login()).get(`/api/chat/conversations/${result.events[0].data.conversationId}`);
      expect(conv.status).toBe(200);
      const answer = conv.body.conversation.messages.find((m: { role: string }) => m.role === 'assistant');
      expect(answer.content.length).toBeGreaterThan(0);
    } finally {
      await server.kill('SIGTERM');
    }
  });
});
