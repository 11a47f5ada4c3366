import { Actor, actorFromRow } from '../../src/access/actor';
import type { Project, User } from '../../src/entities';
import { ForbiddenError } from '../../src/errors';
import type { SearchWing } from '../../src/search';
import { startOpenAiStub } from '../support/openai-stub';
import { factories } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The search wing through its own calls only (issue 36): index (the pipeline hands it a ready
 * document), search (access checked once), reindex and forget, on a real database, a real job
 * host and an OpenAI-compatible embeddings server speaking HTTP. The question shares one common word
 * with the answer (a question sharing none has nothing relevant: issue 35), and its other words only
 * the vectors can match (the stub maps the synonyms together).
 */
const SYNONYMS = [
  ['handlelidswitch', 'folding'],
  ['logind', 'dozing'],
];
const ANSWER = 'Set HandleLidSwitch=ignore in logind.conf and restart the service.';
const QUESTION = 'folding dozing service';

jest.setTimeout(400_000);

let t: TestApp;
let stub: Awaited<ReturnType<typeof startOpenAiStub>>;
let wing: SearchWing;
let owner: User;
let outsider: User;
let project: Project;
let documentId: string;

const asActor = (u: User): Actor =>
  actorFromRow({
    id: u.id,
    email: u.email,
    name: u.name,
    platform_role: u.platformRole,
    org_position: u.orgPosition,
    department_id: null,
    status: u.status,
    avatar_color: u.avatarColor,
    avatar_url: null,
    last_login_at: null,
    created_at: u.createdAt,
  });

/** Where the embedding stage stands (said when a wait times out: it has, rarely, in long loaded runs). */
async function embeddingState(): Promise<string> {
  const sql = (q: string, p: unknown[]) => t.orm.em.fork().getConnection().execute(q, p);
  return JSON.stringify({
    vectors: await sql(`select model, count(*)::int as n from chunk_embeddings where project_id = ? group by model`, [project.id]),
    jobs: await sql(`select name, state, retry_count, output from pgboss.job where data->>'documentId' = ? order by created_on`, [
      documentId,
    ]),
    embeddingRequests: stub.embeddingRequests.map((r) => `${r.model}:${r.status}`),
  });
}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 150_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; embedding stage: ${await embeddingState()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The vector ranking of the question (the wing's trace), once it holds the answer's chunk. */
const foundByMeaning = () =>
  until('the answer found by its vector', async () => {
    const trace: { vector?: Array<{ id: string; score: number }> } = {};
    // floor 0: in a one-document project the common word weighs little (the floor has its own tests)
    const hits = await wing.search(asActor(owner), project.id, QUESTION, { trace, relevanceFloor: 0 });
    return (trace.vector ?? []).length > 0 && hits[0]?.documentId === documentId && hits;
  });

beforeAll(async () => {
  stub = await startOpenAiStub();
  stub.setEmbeddings({ dims: 64, synonyms: SYNONYMS });
  t = await createTestApp({
    workers: true,
    // no sweep (reindex is what re-queues); a loaded machine's slow embedding retried at once, not after the default backoff
    env: {
      EMBEDDING_SWEEP_SECONDS: '3600',
      JOB_POLLING_SECONDS: '1',
      EMBEDDING_QUERY_TIMEOUT_MS: '10000',
      EMBEDDING_RETRY_DELAY_SECONDS: '1',
      EMBEDDING_RETRY_LIMIT: '5',
    },
  });
  wing = t.services.search;
  const f = factories(t.orm, t.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  outsider = await f.makeUser();
  project = await f.makeProject({ owner });
  await t.services.providers.create(Actor.system(), {
    name: 'Embeddings',
    slug: 'emb',
    baseUrl: stub.url,
    apiKey: 'sk-embed',
    models: ['chat-model'],
    embeddingModels: ['embed-small', 'embed-large'],
    isDefault: true,
  });
  const [up] = await t.services.documents.upload(asActor(owner), project.id, [
    { name: 'lid.txt', mimeType: 'text/plain', content: Buffer.from(ANSWER) },
  ]);
  documentId = up.document.id;
  await until('the document ready', async () => (await t.services.documents.get(asActor(owner), documentId)).status === 'ready');
});

afterAll(async () => {
  await t?.close();
  await stub?.close();
});

describe('the search wing, through its calls', () => {
  it('index: a ready document handed to the wing is embedded, and found by meaning', async () => {
    const hits = await foundByMeaning();
    expect(hits[0].text).toContain('HandleLidSwitch');
  });

  it('search: the caller needs use on the project; a check made for another project does not count', async () => {
    await expect(wing.search(asActor(outsider), project.id, QUESTION)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(wing.search(asActor(outsider), project.id, QUESTION, { checked: { id: 'another-project' } })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    expect((await wing.search(asActor(owner), project.id, 'HandleLidSwitch'))[0]?.documentId).toBe(documentId);
  });

  it('reindex: a project whose vectors were lost has its ready documents queued again', async () => {
    await foundByMeaning();
    await t.orm.em.fork().getConnection().execute('delete from chunk_embeddings where project_id = ?', [project.id]);
    expect(await wing.reindex(project.id)).toBe(1);
    await foundByMeaning();
    expect(await wing.reindex(project.id)).toBe(0);
  });

  it("reindex on a model change: a project's new embedding model queues its documents at once, without the sweep", async () => {
    await foundByMeaning();
    const vectorsOf = async (model: string) =>
      (
        await t.orm.em
          .fork()
          .getConnection()
          .execute(
            `select count(*)::int as n from chunk_embeddings e join chunks c on c.id = e.chunk_id where c.document_id = ? and e.model = ?`,
            [documentId, model],
          )
      )[0].n as number;
    expect(await vectorsOf('emb/embed-large')).toBe(0);
    await t.services.projects.update(asActor(owner), project.id, { settings: { embeddingModel: 'emb/embed-large' } });
    // the sweep runs hourly here: only the update's reindex can have queued it
    await until('vectors of the new model', async () => (await vectorsOf('emb/embed-large')) > 0, 60_000);
    await foundByMeaning();
  });

  it('search: a question waits for a vector index still loading only as long as for its embedding, then is answered lexically', async () => {
    await foundByMeaning();
    const store = wing.parts.embeddings.store;
    // an index that takes longer than EMBEDDING_QUERY_TIMEOUT_MS (10 s here) to load, as a million rows do after a restart
    const slow = jest.spyOn(store, 'neighbours').mockImplementation(() => new Promise((r) => setTimeout(() => r([]), 30_000).unref()));
    try {
      const trace: { vector?: Array<{ id: string; score: number }> } = {};
      const t0 = Date.now();
      const hits = await wing.search(asActor(owner), project.id, 'HandleLidSwitch logind', { trace });
      expect(Date.now() - t0).toBeLessThan(20_000);
      expect(slow).toHaveBeenCalled();
      expect(trace.vector).toEqual([]);
      expect(hits[0]?.documentId).toBe(documentId);
    } finally {
      slow.mockRestore();
    }
  });

  it('forget: the document leaves the index and no question finds it', async () => {
    expect(await wing.forget(documentId)).toBeGreaterThan(0);
    expect(await wing.search(asActor(owner), project.id, 'HandleLidSwitch logind')).toEqual([]);
    expect(await wing.search(asActor(owner), project.id, QUESTION)).toEqual([]);
  });
});
