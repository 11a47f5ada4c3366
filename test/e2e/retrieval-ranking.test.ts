import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ingestFiles } from '../support/documents';
import { EVAL_DOCS_DIR } from '../support/eval/corpus';
import { factories } from '../support/factories';
import { startOpenAiStub, OpenAiStub } from '../support/openai-stub';
import { makePdf } from '../support/pdf';
import { postSse } from '../support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * What the user sees of the ranking, through the real upload path and the chat SSE endpoint:
 * identifiers found by their parts, a passage that runs across a page break cited on the page of
 * its matching text, and running headers of a real manual left out of its passages.
 */
let t: TestApp;
let stub: OpenAiStub;
let token: string;
let projectId: string;

type Source = { id: string; documentName: string; pageNumber: number; snippet: string };

async function sources(message: string): Promise<Source[]> {
  const res = await postSse(t.baseUrl, `/api/chat/projects/${projectId}`, { token, body: { message } });
  const event = res.events.find((e) => e.event === 'sources');
  expect(event).toBeDefined();
  return (event!.data as { chunks: Source[] }).chunks;
}

async function upload(files: Array<{ name: string; content: Buffer | string; type?: string }>): Promise<void> {
  for (const d of await ingestFiles(t.baseUrl, token, projectId, files)) expect(d.status).toBe('ready');
}

beforeAll(async () => {
  stub = await startOpenAiStub({ deltas: ['See [1].'] });
  t = await createTestApp({ workers: true, env: { LLM_BASE_URL: stub.url, LLM_API_KEY: 'sk-test', LLM_MODEL: 'stub-model' } });
  const f = factories(t.orm, t.services);
  const owner = await f.makeUser({ platformRole: 'admin' });
  token = owner.token;
  projectId = (await f.makeProject({ owner })).id;
  const text = (name: string, content: string) => ({ name, content, type: 'text/plain' });
  await upload([
    text('logind.txt', 'HandleLidSwitch=\nControls what logind does when the notebook is shut. Defaults to suspend.'),
    text('power.txt', 'The power switch is on the left side of the case. Hold the switch for four seconds to turn the machine off.'),
    text('lid.txt', 'Keep the lid of the jar closed. A closed lid keeps the coffee beans fresh for weeks, and the lid seals well.'),
    text('man.txt', 'The man command formats and displays the manual pages installed on the system.'),
    text(
      'rechner.txt',
      'Man kann den Rechner jederzeit mit dem Schalter ausschalten, wenn man will. Der Rechner war gestern lange eingeschaltet, und man hat ihn nicht neu gestartet.',
    ),
    text('python.txt', 'Call os.path.join to build a file name from its parts on every platform.'),
    text('paths.txt', 'A path of a file names its directory. Join the crowd at the town square; the path starts at the gate.'),
    {
      name: 'archive.pdf',
      type: 'application/pdf',
      content: makePdf([
        {
          paragraphs: [
            'Backups are written nightly to the archive volume by the backup service.',
            'Its retention period is decided by the operator and by default the archive is',
          ],
        },
        { paragraphs: ['pruned after ninety days, when older snapshots are deleted for good.', 'Restores read from the newest snapshot.'] },
      ]),
    },
    { name: 'ssh_config.pdf', type: 'application/pdf', content: readFileSync(path.join(EVAL_DOCS_DIR, 'ssh_config.pdf')) },
  ]);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await stub?.close();
});

describe('technical vocabulary', () => {
  it('finds HandleLidSwitch= from "lid switch", ahead of passages holding only one of the words', async () => {
    const [top] = await sources('what happens to the lid switch?');
    expect(top.documentName).toBe('logind.txt');
  });

  it('finds os.path.join from "path join", and still by its whole name', async () => {
    expect((await sources('how do I path join file names?'))[0].documentName).toBe('python.txt');
    expect((await sources('os.path.join'))[0].documentName).toBe('python.txt');
  });
});

describe('stop words of another language', () => {
  it('do not vanish from the question: German "man" stays in an English question', async () => {
    const [top] = await sources('What does man do?');
    expect(top.documentName).toBe('man.txt');
  });
});

describe('citations across a page break', () => {
  it('cite the page holding the text that matches the question', async () => {
    const pruned = await sources('when are snapshots pruned, after how many days?');
    expect(pruned[0]).toMatchObject({ documentName: 'archive.pdf', pageNumber: 2 });
    expect(pruned[0].snippet).toContain('Its retention period'); // one passage across the break
    const nightly = await sources('where are backups written nightly?');
    expect(nightly[0]).toMatchObject({ documentName: 'archive.pdf', pageNumber: 1 });
  });
});

describe('running headers of a real manual (OpenSSH ssh_config(5), 20 pages)', () => {
  it('are not part of any passage, and its option entries are found by name', async () => {
    const rows = await t.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ n: number; pages: number }>>(
        `select count(*) filter (where c.text ilike '%File Formats Manual%' or c.text ~ 'BSD January 13, 2023') ::int as n,
                count(distinct c.page_number)::int as pages
           from chunks c join documents d on d.id = c.document_id where d.name = 'ssh_config.pdf'`,
      );
    expect(rows[0]).toEqual({ n: 0, pages: 20 });
    const [top] = await sources('how many connection attempts are made before ssh exits?');
    expect(top.documentName).toBe('ssh_config.pdf');
  });
});
