import type { Actor } from '../../src/access/actor';
import type { Project } from '../../src/entities';
import { ingestFiles, uploadFiles } from '../support/documents';
import { factories } from '../support/factories';
import { gql } from '../support/graphql';
import { api } from '../support/http';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { postSse } from '../support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 17: one project with a German, a French, an English and a Chinese document (the same
 * warranty and refund policy, written separately in each language).
 */
const DOCS = {
  de: {
    name: 'garantie.txt',
    content:
      'Garantiebedingungen der Firma Nordlicht. Die Garantie gilt zwei Jahre ab dem Kaufdatum und umfasst alle Material- und Verarbeitungsfehler.\n\n' +
      'Rückerstattung: Für eine Rückerstattung benötigen Sie den Kaufbeleg und die unbeschädigte Originalverpackung. Die Erstattung erfolgt innerhalb von vierzehn Tagen.',
  },
  fr: {
    name: 'garantie-fr.txt',
    content:
      "Conditions de garantie de la société Soleil. La garantie est valable trois ans à compter de la date d'achat et couvre les défauts de fabrication.\n\n" +
      "Remboursement : pour obtenir un remboursement, il faut présenter la facture d'achat et rapporter l'appareil dans son emballage d'origine.",
  },
  en: {
    name: 'warranty.txt',
    content:
      'Warranty terms of Harbor Tools. The warranty lasts five years from the date of purchase and covers defects in materials and workmanship.\n\n' +
      'Refunds: a refund requires the original receipt and the product returned within thirty days in its original packaging.',
  },
  zh: {
    name: '保修条款.txt',
    content:
      '长城电器保修条款。本产品的保修期为自购买之日起一年，保修范围包括材料和工艺缺陷。\n\n退款说明：办理退款需要提供购物发票和完好的原包装，退款将在七个工作日内完成。',
  },
};

let t: TestApp;
let stub: OpenAiStub;
let f: ReturnType<typeof factories>;
let owner: Awaited<ReturnType<ReturnType<typeof factories>['makeUser']>>;
let actor: Actor;
let project: Project;
const ids: Record<string, string> = {};

const ingest = (projectId: string, files: Parameters<typeof uploadFiles>[3], fields?: Record<string, string>) =>
  ingestFiles(t.baseUrl, owner.token, projectId, files, { fields });

const sourcesOf = async (question: string, projectId = project.id) =>
  (await t.services.search.search(actor, projectId, question)).map((h) => h.documentId);

beforeAll(async () => {
  stub = await startOpenAiStub({ deltas: ['ok'] });
  t = await createTestApp({ workers: true, env: { LLM_BASE_URL: stub.url, LLM_API_KEY: 'sk-test', LLM_MODEL: 'stub-model' } });
  f = factories(t.orm, t.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  actor = await t.services.tokens.authenticate(owner.token);
  project = await f.makeProject({ owner });
  for (const [lang, d] of Object.entries(DOCS)) {
    const [doc] = await ingest(project.id, [{ name: d.name, content: d.content, type: 'text/plain' }]);
    expect(doc).toMatchObject({ status: 'ready', language: lang });
    ids[lang] = doc.id;
  }
}, 120_000);
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

describe("the issue's four-language project", () => {
  it.each([
    ['de', 'Wie lange gilt die Garantie?'],
    ['de', 'Was brauche ich für eine Rückerstattung?'],
    ['fr', 'Combien de temps dure la garantie ?'],
    ['fr', 'Que faut-il pour un remboursement ?'],
    ['en', 'How long does the warranty last?'],
    ['en', 'What does a refund require?'],
    ['zh', '保修期是多久？'],
    ['zh', '退款需要什么？'],
  ])('%s: %s finds its document first', async (lang, question) => {
    const sources = await sourcesOf(question);
    expect(sources[0]).toBe(ids[lang]);
  });

  it("chat sends the Chinese document in `sources` for the issue's Chinese questions", async () => {
    for (const message of ['保修期是多久？', '退款需要什么？']) {
      const r = await postSse(t.baseUrl, `/api/chat/projects/${project.id}`, { token: owner.token, body: { message } });
      const sources = r.events.find((e) => e.event === 'sources')?.data as { chunks: Array<{ documentId: string; documentName: string }> };
      expect(sources.chunks.length).toBeGreaterThan(0);
      expect(sources.chunks[0]).toMatchObject({ documentId: ids.zh, documentName: '保修条款.txt' });
    }
  });

  it("indexes each document with its language's configuration (German compounds and stems match)", async () => {
    const [row] = await t.orm.em
      .fork()
      .getConnection()
      .execute(`select tsv::text as tsv from chunks where document_id = ? order by ordinal limit 1`, [ids.de]);
    // german stemming ("Garantiebedingungen" → garantiebeding), not english
    expect(row.tsv).toContain("'garantiebeding'");
    expect(await sourcesOf('Garantiebedingung')).toEqual([ids.de]);
    // French: elisions and accents ("d'achat", "défauts")
    expect((await sourcesOf("date d'achat défaut"))[0]).toBe(ids.fr);
  });

  it('shows the language on the document over REST and GraphQL', async () => {
    const rest = await api(t.baseUrl, 'GET', `/api/documents/${ids.zh}`, { token: owner.token });
    expect(rest.body.document.language).toBe('zh');
    const list = await api(t.baseUrl, 'GET', `/api/projects/${project.id}/documents`, { token: owner.token });
    expect(Object.fromEntries(list.body.documents.map((d: { id: string; language: string }) => [d.id, d.language]))).toEqual({
      [ids.de]: 'de',
      [ids.fr]: 'fr',
      [ids.en]: 'en',
      [ids.zh]: 'zh',
    });
    const g = await gql(t.baseUrl, `query($p: ID!) { documents(projectId: $p) { items { id language } } }`, {
      token: owner.token,
      variables: { p: project.id },
    });
    expect(g.errors).toBeUndefined();
    expect(Object.fromEntries(g.data.documents.items.map((d: { id: string; language: string }) => [d.id, d.language]))).toEqual({
      [ids.de]: 'de',
      [ids.fr]: 'fr',
      [ids.en]: 'en',
      [ids.zh]: 'zh',
    });
  });
});

describe('several languages in one project', () => {
  it("drops words any of the project's languages treats as stop words, so English ones kept by French stemming do not decide", async () => {
    const p = await f.makeProject({ owner });
    const [fr, en] = await ingest(p.id, [
      {
        name: 'exports.txt',
        content:
          "Options d'exportation du serveur de fichiers. Chaque ligne du fichier indique un répertoire partagé et les machines autorisées à le monter, avec leurs options.\n\n" +
          'Note: what it is when the server is there, and what it was when it is not, is all that there is to it.',
      },
      { name: 'lid.txt', content: 'Closing the lid of the laptop suspends the machine, unless an external display is connected.' },
    ]);
    expect(fr.language).toBe('fr');
    expect((await sourcesOf('What happens when the laptop lid is closed?', p.id))[0]).toBe(en.id);
  });
});

describe('CJK text', () => {
  it('matches Latin tokens inside Chinese text, and Chinese words inside mixed questions', async () => {
    const p = await f.makeProject({ owner });
    const [mixed, other] = await ingest(p.id, [
      { name: 'install.txt', content: '安装说明：本系统需要 PostgreSQL 15 或更高版本，请先创建数据库用户。', type: 'text/plain' },
      { name: 'other.txt', content: '网络设置：路由器的默认地址写在设备底部的标签上。', type: 'text/plain' },
    ]);
    expect(await sourcesOf('PostgreSQL 15', p.id)).toEqual([mixed.id]);
    expect((await sourcesOf('which PostgreSQL version?', p.id))[0]).toBe(mixed.id);
    expect((await sourcesOf('数据库用户怎么创建', p.id))[0]).toBe(mixed.id);
    expect((await sourcesOf('路由器地址', p.id))[0]).toBe(other.id);
  });

  it('indexes Japanese and Korean runs as bigrams', async () => {
    const p = await f.makeProject({ owner });
    const [ja, ko] = await ingest(p.id, [
      { name: 'ja.txt', content: 'この製品の保証期間は購入日から二年間です。返品にはレシートが必要です。', type: 'text/plain' },
      { name: 'ko.txt', content: '이 제품의 보증 기간은 구매일로부터 2년입니다. 환불하려면 영수증이 필요합니다.', type: 'text/plain' },
    ]);
    expect(ja.language).toBe('ja');
    expect(ko.language).toBe('ko');
    expect((await sourcesOf('保証期間はどのくらいですか', p.id))[0]).toBe(ja.id);
    expect((await sourcesOf('보증 기간은 얼마나 됩니까', p.id))[0]).toBe(ko.id);
    expect((await sourcesOf('환불', p.id))[0]).toBe(ko.id);
  });
});

describe('stated language', () => {
  it('takes the multipart field `language` over detection, and rejects one that is not a language', async () => {
    const p = await f.makeProject({ owner });
    // Dutch text stated as Dutch, indexed with the dutch configuration
    const [doc] = await ingest(p.id, [{ name: 'nl.txt', content: 'De garantie geldt twee jaar.', type: 'text/plain' }], {
      language: 'nl-BE',
    });
    expect(doc.language).toBe('nl');
    const bad = await uploadFiles(t.baseUrl, owner.token, p.id, [{ name: 'x.txt', content: 'hello', type: 'text/plain' }], {
      language: 'klingon',
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'validation_failed', details: [{ field: 'language' }] });
    const unknown = await uploadFiles(t.baseUrl, owner.token, p.id, [{ name: 'y.txt', content: 'hello', type: 'text/plain' }], {
      language: 'qq',
    });
    expect(unknown.status).toBe(400);
  });
});
