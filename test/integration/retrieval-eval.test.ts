import type { Project } from '../../src/entities';
import { ingestFiles, uploadFiles } from '../support/documents';
import { factories } from '../support/factories';
import { makePdf } from '../support/pdf';
import { evalDocuments, evalQuestions, scoreEval } from '../support/retrieval-eval';
import { createTestApp, TestApp } from '../support/test-app';
import { Actor } from '../../src/access/actor';
import { RELEVANCE_FLOOR, type SearchTrace } from '../../src/search/relevance';

let t: TestApp;
let f: ReturnType<typeof factories>;
let owner: Awaited<ReturnType<ReturnType<typeof factories>['makeUser']>>;
let ownerActor: Actor;
let project: Project;

const actorOf = (token: string) => t.services.tokens.authenticate(token);

/** Uploads files through the HTTP API and waits until the real workers have ingested them. */
const ingest = (projectId: string, files: Parameters<typeof uploadFiles>[3]) => ingestFiles(t.baseUrl, owner.token, projectId, files);

beforeAll(async () => {
  t = await createTestApp({ workers: true });
  f = factories(t.orm, t.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  ownerActor = await actorOf(owner.token);
  project = await f.makeProject({ owner });
  const docs = await ingest(project.id, await evalDocuments());
  for (const d of docs) expect({ name: d.name, status: d.status, error: d.error }).toEqual({ name: d.name, status: 'ready', error: null });
}, 120_000);
afterAll(async () => t?.close());

describe('retrieval evaluation set', () => {
  it('finds the answering passage in the top 5 for at least 90% of the questions, on the labelled page', async () => {
    const questions = evalQuestions();
    expect(questions.length).toBeGreaterThanOrEqual(30);
    const runs = [];
    for (const q of questions) runs.push({ q, hits: await t.services.search.search(ownerActor, project.id, q.question, { topK: 5 }) });
    const score = scoreEval(runs);
    // the figures, for whoever reads the test log
    process.stdout.write(
      `retrieval eval: recall@1=${score.recallAt1.toFixed(3)} recall@5=${score.recallAt5.toFixed(3)} MRR=${score.mrr.toFixed(3)} (${score.questions} questions)\n`,
    );
    if (score.misses.length) process.stdout.write(`misses: ${JSON.stringify(score.misses, null, 2)}\n`);
    expect(score.recallAt5).toBeGreaterThanOrEqual(0.9);
    expect(score.wrongPages).toEqual([]);
  });
});

describe('page-exact citations', () => {
  it('answers from page 2 of a two-page PDF when the answer is only on page 2', async () => {
    const p = await f.makeProject({ owner });
    const pdf = makePdf([
      {
        paragraphs: [
          'Orion Coffee Machine. Quick start guide.',
          'Fill the water tank, insert a capsule and press the large button. The machine heats up in about thirty seconds.',
        ],
      },
      {
        paragraphs: [
          'Descaling.',
          'Descale the machine every three months with the Orion descaling liquid: fill the tank with one sachet dissolved in half a litre of water and hold both buttons for five seconds.',
        ],
      },
    ]);
    const [doc] = await ingest(p.id, [{ name: 'orion.pdf', content: pdf, type: 'application/pdf' }]);
    expect(doc).toMatchObject({ status: 'ready', pageCount: 2 });
    const hits = await t.services.search.search(ownerActor, p.id, 'How often should I descale the coffee machine?');
    expect(hits[0]).toMatchObject({ pageNumber: 2, documentName: 'orion.pdf', documentId: doc.id });
    expect(hits[0].text).toContain('every three months');
  });
});

describe('search', () => {
  it('uses OR semantics: words absent from the corpus do not prevent a match', async () => {
    const hits = await t.services.search.search(ownerActor, project.id, 'zebra: what is the minimum password length?');
    expect(hits[0].text).toContain('at least 14 characters');
    // but a question weighing mostly in words the project never uses falls below the relevance
    // floor (src/search/relevance.ts): nothing relevant, rather than whatever shares a word
    const trace: SearchTrace = {};
    const q = 'zebra xylophone quantum marimba: what is the minimum password length?';
    expect(await t.services.search.search(ownerActor, project.id, q, { trace })).toEqual([]);
    expect(trace.relevance).toBeGreaterThan(0);
    expect(trace.relevance).toBeLessThan(RELEVANCE_FLOOR);
    expect((await t.services.search.search(ownerActor, project.id, q, { relevanceFloor: 0 }))[0].text).toContain('at least 14 characters');
  });

  it('returns the project setting topK by default, else 6, and caller topK when given', async () => {
    const q = 'What is the policy for travel, leave, passwords and the router?';
    expect(await t.services.search.search(ownerActor, project.id, q)).toHaveLength(6);
    expect(await t.services.search.search(ownerActor, project.id, q, { topK: 3 })).toHaveLength(3);
    const em = t.orm.em.fork();
    await em.getConnection().execute(`update projects set settings = '{"topK": 2}' where id = ?`, [project.id]);
    try {
      expect(await t.services.search.search(ownerActor, project.id, q)).toHaveLength(2);
      expect(await t.services.search.search(Actor.system(), project.id, q)).toHaveLength(2);
    } finally {
      await em.getConnection().execute(`update projects set settings = '{}' where id = ?`, [project.id]);
    }
  });

  it('returns hits with scores in descending order and the documented fields', async () => {
    const hits = await t.services.search.search(Actor.system(), project.id, 'hotel limit per night');
    expect(Object.keys(hits[0]).sort()).toEqual(['chunkId', 'context', 'documentId', 'documentName', 'pageNumber', 'score', 'text']);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
    expect(hits[0].context).toContain(hits[0].text.split('\n\n')[0]);
  });

  it('matches across accents and stemming (unaccent + language configuration)', async () => {
    const hits = await t.services.search.search(Actor.system(), project.id, 'reimbursing kilométres driven');
    expect(hits[0].text).toContain('0.30 euros per kilometre');
  });

  it('gives nothing for a question of stop words only or words the project never uses', async () => {
    expect(await t.services.search.search(Actor.system(), project.id, 'what is the of and')).toEqual([]);
    expect(await t.services.search.search(Actor.system(), project.id, 'zebra xylophone')).toEqual([]);
  });

  it('checks `use` on the project when given an actor: 403 without access, 404 for a missing project', async () => {
    const stranger = await actorOf((await f.makeUser()).token);
    await expect(t.services.search.search(stranger, project.id, 'password')).rejects.toMatchObject({ code: 'forbidden' });
    await expect(t.services.search.search(ownerActor, '00000000-0000-4000-8000-000000000000', 'password')).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(t.services.search.search(Actor.system(), 'not-a-uuid', 'password')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('ranks the question words as a phrase above the same words scattered (proximity bonus)', async () => {
    const p = await f.makeProject({ owner });
    // same words, same lengths: BM25 alone cannot tell them apart
    const [scattered, phrase] = await ingest(p.id, [
      { name: 'scattered.txt', content: 'Reset your badge at the desk. The office password is printed on the card.', type: 'text/plain' },
      { name: 'phrase.txt', content: 'The office password reset is done at the desk. Your badge is on the card.', type: 'text/plain' },
    ]);
    const hits = await t.services.search.search(ownerActor, p.id, 'password reset');
    expect(hits.map((h) => h.documentId)).toEqual([phrase.id, scattered.id]);
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
  });

  it('takes any question text: URLs, addresses, quotes, backslashes, operators, emoji', async () => {
    const odd = [
      'http://192.168.8.1 setup wizard?',
      'mail security@northwind.example now',
      "what's the \\ 'quoted' \"thing\"",
      "a:* & b | !c <-> d ('x')",
      'C++ and C# vs. F#',
      '🙂 café naïve',
      '',
      '   ',
      'x'.repeat(5000),
    ];
    for (const q of odd) await expect(t.services.search.search(Actor.system(), project.id, q)).resolves.toEqual(expect.any(Array));
    const [hit] = await t.services.search.search(Actor.system(), project.id, 'http://192.168.8.1');
    expect(hit.text).toContain('192.168.8.1');
  });

  it('keeps results within one project', async () => {
    const other = await f.makeProject({ owner });
    expect(await t.services.search.search(ownerActor, other.id, 'minimum password length')).toEqual([]);
  });
});
