import { projectLanguages } from '../../src/search/analysis';
import { factories } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * A question analyses itself with the text-search configuration of every language of its project's
 * documents (RetrievalService.analyze). Those languages come from documents_project_language_index,
 * a probe per language, not from reading every document of the project.
 */
let t: TestApp;
let f: ReturnType<typeof factories>;

const exec = (sql: string, params: unknown[] = []): Promise<any[]> => t.orm.em.fork().getConnection().execute(sql, params);

/** Adds `n` documents to the project, their languages taken in turn from `languages`. */
async function addDocuments(projectId: string, n: number, languages: Array<string | null>): Promise<void> {
  await exec(
    `insert into documents (project_id, name, mime_type, size, sha256, status, language)
     select ?, 'doc-' || i, 'text/plain', 1, md5(? || i), 'ready', (?::jsonb ->> (i % ?)::int)
       from generate_series(0, ? - 1) i`,
    [projectId, projectId, JSON.stringify(languages), languages.length, n],
  );
}

/** The languages as the CTE gives them, and as reading every document gives them. */
async function languagesOf(projectId: string): Promise<{ cte: Array<string | null>; all: Array<string | null> }> {
  const order = (rows: any[]): Array<string | null> =>
    rows.map((r) => r.language as string | null).sort((a, b) => String(a).localeCompare(String(b)));
  return {
    cte: order(
      await exec(`with recursive ${projectLanguages(projectId).sql} select language from langs`, projectLanguages(projectId).params),
    ),
    all: order(await exec(`select distinct language from documents where project_id = ?`, [projectId])),
  };
}

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
}, 60_000);
afterAll(async () => t?.close());

it.each([
  ['no documents', 0, []],
  ['only documents without a language', 5, [null]],
  ['one language', 5, ['en']],
  ['several languages and none', 40, ['en', 'de', null, 'fr', 'zh', 'de']],
  ['several languages, each document stated', 40, ['pt', 'en', 'es']],
])('a project with %s: the languages equal those of its documents', async (_, n, languages) => {
  const project = await f.makeProject();
  // another project's documents, in other languages, are not the project's
  const other = await f.makeProject();
  await addDocuments(other.id, 10, ['ru', null, 'it']);
  await addDocuments(project.id, n, languages);
  const { cte, all } = await languagesOf(project.id);
  expect(cte).toEqual(all);
  expect(cte).toHaveLength((languages as unknown[]).length ? new Set(languages as unknown[]).size : 0);
});

it('takes a step a language, not a row a document: 6,000 documents in 3 languages and none', async () => {
  const project = await f.makeProject();
  await addDocuments(project.id, 6000, ['en', null, 'de', 'fr']);
  await exec('vacuum analyze documents');
  const [
    {
      'QUERY PLAN': [plan],
    },
  ] = await exec(
    `explain (analyze, buffers, format json) with recursive ${projectLanguages(project.id).sql} select language from langs`,
    projectLanguages(project.id).params,
  );
  const text = JSON.stringify(plan);
  expect(text).toContain('documents_project_language_index');
  expect(text).not.toContain('"Seq Scan"');
  // no step of it handles more than a row a language (reading every document handles 6,000)
  const rows = (node: any): number => Math.max(node['Actual Rows'] * (node['Actual Loops'] ?? 1), ...(node.Plans ?? []).map(rows));
  expect(rows(plan.Plan)).toBeLessThanOrEqual(5);
  const [
    {
      'QUERY PLAN': [whole],
    },
  ] = await exec(`explain (analyze, buffers, format json) select distinct language from documents where project_id = ?`, [project.id]);
  expect(rows(whole.Plan)).toBeGreaterThanOrEqual(6000);
  expect((await languagesOf(project.id)).cte).toEqual([null, 'de', 'en', 'fr'].sort((a, b) => String(a).localeCompare(String(b))));
}, 60_000);
