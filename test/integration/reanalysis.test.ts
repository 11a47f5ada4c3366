import type { Actor } from '../../src/access/actor';
import { postingsOf, rebuildPostings } from '../../src/search/index-writer';
import { ANALYSIS_VERSION } from '../../src/services/documents.service';
import { uploadFiles, waitForDocument } from '../support/documents';
import { factories } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 17, migration: documents indexed before languages and CJK bigrams existed (English
 * configuration for everything, no language) are re-analysed by a background job while search
 * keeps answering from their old chunks.
 */
let t: TestApp;
let f: ReturnType<typeof factories>;
let owner: Awaited<ReturnType<ReturnType<typeof factories>['makeUser']>>;
let actor: Actor;

const exec = (sql: string, params: unknown[] = []): Promise<any[]> => t.orm.em.fork().getConnection().execute(sql, params);
const texts = (rows: Array<{ text: string; context: string }>) => rows.map((r) => JSON.stringify([r.text, r.context])).sort();

/**
 * Puts a project's index back into the state the previous release left: English vectors,
 * statistics and postings (as the term_postings migration backfills them) to match, no language.
 */
async function indexTheOldWay(projectId: string): Promise<void> {
  await exec(`update chunks set tsv = to_tsvector('english', docqa_unaccent(text)) where project_id = ?`, [projectId]);
  await exec(
    `update chunks set term_count = coalesce((select sum(coalesce(array_length(u.positions, 1), 1)) from unnest(tsv) u), 0) where project_id = ?`,
    [projectId],
  );
  await rebuildPostings(t.orm.em.fork(), projectId);
  await exec(`delete from term_stats where project_id = ?`, [projectId]);
  await exec(
    `insert into term_stats (project_id, term, df) select ?, u.lexeme, count(*) from chunks c, unnest(c.tsv) u where c.project_id = ? group by u.lexeme`,
    [projectId, projectId],
  );
  await exec(
    `update project_index_stats set total_terms = (select sum(term_count) from chunks where project_id = ?) where project_id = ?`,
    [projectId, projectId],
  );
  await exec(`update documents set language = case when language_stated then language end, analysis_version = 0 where project_id = ?`, [
    projectId,
  ]);
}

beforeAll(async () => {
  t = await createTestApp({ workers: true });
  f = factories(t.orm, t.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  actor = await t.services.tokens.authenticate(owner.token);
}, 60_000);
afterAll(async () => t?.close());

it('re-detects languages and rebuilds vectors in the background; search answers throughout', async () => {
  const project = await f.makeProject({ owner });
  const english = Array.from({ length: 12 }, (_, i) => ({
    name: `manual-${i}.txt`,
    content: Array.from(
      { length: 40 },
      (_, k) => `Section ${k} of manual ${i}: the pump model P${i}-${k} is serviced every ${k + 2} months by a certified technician.`,
    ).join('\n\n'),
    type: 'text/plain',
  }));
  const res = await uploadFiles(t.baseUrl, owner.token, project.id, [
    { name: '保修条款.txt', content: '本产品的保修期为自购买之日起一年。退款需要提供购物发票和完好的原包装。', type: 'text/plain' },
    ...english,
  ]);
  expect(res.status).toBe(202);
  const docs = await Promise.all(res.body.documents.map((d: { id: string }) => waitForDocument(t.baseUrl, owner.token, d.id, 60_000)));
  const chinese = docs[0];
  const stated = (
    await uploadFiles(
      t.baseUrl,
      owner.token,
      project.id,
      [{ name: 'nl.txt', content: 'De garantie geldt twee jaar.', type: 'text/plain' }],
      { language: 'nl' },
    )
  ).body.documents[0];
  await waitForDocument(t.baseUrl, owner.token, stated.id);
  const textsBefore = await exec(`select id, text, context from chunks where project_id = ? order by id`, [project.id]);

  await indexTheOldWay(project.id);
  // the symptom, before the migration
  expect(await t.services.search.search(actor, project.id, '保修期是多久？')).toEqual([]);

  const probe = 'When is pump P7-31 serviced?';
  const expectedFirst = docs[8].id;
  expect((await t.services.search.search(actor, project.id, probe))[0].documentId).toBe(expectedFirst);

  await t.services.documents.ingestQueue.enqueueReanalysis();
  t.services.documents.ingestQueue.nudge();
  // search keeps working while documents are swapped one transaction at a time
  let searches = 0;
  const until = Date.now() + 60_000;
  for (;;) {
    const hits = await t.services.search.search(actor, project.id, probe);
    expect(hits[0]?.documentId).toBe(expectedFirst);
    searches++;
    const [{ stale }] = await exec(`select count(*)::int as stale from documents where project_id = ? and analysis_version < ?`, [
      project.id,
      ANALYSIS_VERSION,
    ]);
    if (stale === 0) break;
    if (Date.now() > until) throw new Error(`${stale} documents still not re-analysed`);
  }
  expect(searches).toBeGreaterThan(1);

  const after = await exec(`select id, language, status from documents where project_id = ?`, [project.id]);
  const byId: Record<string, any> = Object.fromEntries(after.map((d) => [d.id, d]));
  expect(byId[chinese.id]).toMatchObject({ language: 'zh', status: 'ready' });
  expect(byId[stated.id]).toMatchObject({ language: 'nl' });
  expect(docs.slice(1).every((d) => byId[d.id].language === 'en')).toBe(true);
  expect((await t.services.search.search(actor, project.id, '保修期是多久？'))[0].documentId).toBe(chinese.id);

  // the stored text is unchanged, and the statistics match the rebuilt vectors exactly
  expect(texts(await exec(`select text, context from chunks where project_id = ?`, [project.id]))).toEqual(texts(textsBefore));
  const drift = await exec(
    `select coalesce(s.term, c.term) as term, s.df as stored, c.df as actual
       from (select term, df from term_stats where project_id = ?) s
       full join (select u.lexeme as term, count(*)::int as df from chunks ch, unnest(ch.tsv) u where ch.project_id = ? group by u.lexeme) c on c.term = s.term
      where s.df is distinct from c.df`,
    [project.id, project.id],
  );
  expect(drift).toEqual([]);
  // and so do the postings
  const postings = await exec(
    `(select document_id, term, part, chunk_ids::text, tfs::text, lens::text from term_postings where project_id = ?
      except select p.d, p.t, p.k, p.i::text, p.f::text, p.l::text from (${postingsOf('(select * from chunks where project_id = ?)')}) p(x, t, d, k, i, f, l))
     union all
     (select p.d, p.t, p.k, p.i::text, p.f::text, p.l::text from (${postingsOf('(select * from chunks where project_id = ?)')}) p(x, t, d, k, i, f, l)
      except select document_id, term, part, chunk_ids::text, tfs::text, lens::text from term_postings where project_id = ?)`,
    [project.id, project.id, project.id, project.id],
  );
  expect(postings).toEqual([]);
  expect((await exec(`select count(*)::int as n from term_postings where project_id = ?`, [project.id]))[0].n).toBeGreaterThan(100);
  const [stats] = await exec(
    `select chunk_count, total_terms::int as total_terms, (select count(*)::int from chunks where project_id = ?) as chunks, (select sum(term_count)::int from chunks where project_id = ?) as terms from project_index_stats where project_id = ?`,
    [project.id, project.id, project.id],
  );
  expect(stats.chunk_count).toBe(stats.chunks);
  expect(stats.total_terms).toBe(stats.terms);
}, 120_000);
