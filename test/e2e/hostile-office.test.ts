import { readFileSync } from 'node:fs';
import path from 'node:path';
import JSZip from 'jszip';
import { HostileServer, ingestProbed, startHostileServer } from '../support/hostile-server';

jest.setTimeout(180_000);

const MAX_EXPANDED_MB = 20;
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A workbook of `sheets` sheets, each made by `sheetXml`, sharing `sharedStrings` (written by jszip, deflated). */
async function makeXlsx(sheets: number, sheetXml: (i: number) => string, sharedStrings?: string): Promise<Buffer> {
  const zip = new JSZip();
  const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const ids = Array.from({ length: sheets }, (_, i) => i + 1);
  zip.file(
    '[Content_Types].xml',
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
      `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`,
  );
  zip.file(
    '_rels/.rels',
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  zip.file(
    'xl/workbook.xml',
    `<workbook xmlns="${ns}" xmlns:r="${rel}"><sheets>${ids.map((i) => `<sheet name="Sheet ${i}" sheetId="${i}" r:id="rId${i}"/>`).join('')}</sheets></workbook>`,
  );
  zip.file(
    'xl/_rels/workbook.xml.rels',
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${ids
      .map((i) => `<Relationship Id="rId${i}" Type="${rel}/worksheet" Target="worksheets/sheet${i}.xml"/>`)
      .join('')}</Relationships>`,
  );
  for (const i of ids)
    zip.file(`xl/worksheets/sheet${i}.xml`, `<worksheet xmlns="${ns}"><sheetData>${sheetXml(i)}</sheetData></worksheet>`);
  if (sharedStrings !== undefined) zip.file('xl/sharedStrings.xml', `<sst xmlns="${ns}">${sharedStrings}</sst>`);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

/** A row of string cells referring to shared strings `refs`. */
const sharedRow = (r: number, refs: number[]) =>
  `<row r="${r}">${refs.map((s, c) => `<c r="${String.fromCharCode(65 + c)}${r}" t="s"><v>${s}</v></c>`).join('')}</row>`;

interface Case {
  label: string;
  name: string;
  type: string;
  content: Buffer;
  status: 'ready' | 'failed';
  error?: RegExp;
}

/**
 * Hostile spreadsheets against the real server process: each fails with its named limit or
 * reason, on its first attempt, while an ordinary workbook in the same upload is read and
 * /healthz keeps answering throughout.
 */
describe('hostile office files', () => {
  let h: HostileServer;

  beforeAll(async () => {
    h = await startHostileServer('Hostile office', { PARSER_TIMEOUT_SECONDS: '30', PARSER_MAX_EXPANDED_MB: String(MAX_EXPANDED_MB) });
  });

  afterAll(async () => h?.close());

  it('each hostile workbook fails with its named limit, not retried, while /healthz keeps answering and an ordinary one is read', async () => {
    const budget = readFileSync(path.join(__dirname, '../fixtures/formats/office/budget.xlsx'));
    // 40 MB of shared strings deflated about a thousandfold (deflate's best is 1032:1): more than PARSER_MAX_EXPANDED_MB once inflated
    const bombText = 'x'.repeat(40 * 1024 * 1024);
    const bomb = await makeXlsx(1, () => sharedRow(1, [0]), `<si><t>${bombText}</t></si>`);
    expect(bombText.length / bomb.length).toBeGreaterThan(900);
    // a small workbook whose one 200 KB shared string is referenced by 200 cells: 40 MB of text from a few KB
    const laughs = await makeXlsx(
      1,
      () =>
        Array.from({ length: 20 }, (_, r) =>
          sharedRow(
            r + 1,
            Array.from({ length: 10 }, () => 0),
          ),
        ).join(''),
      `<si><t>${'budget line '.repeat((200 * 1024) / 12)}</t></si>`,
    );
    const inner = await new JSZip().file('budget.xlsx', budget).generateAsync({ type: 'nodebuffer' });
    const nested = await new JSZip().file('budgets.zip', inner).generateAsync({ type: 'nodebuffer' });
    const cases: Case[] = [
      {
        label: 'a 1,000-sheet workbook',
        name: 'sheets.xlsx',
        type: XLSX_TYPE,
        content: await makeXlsx(1000, (i) => `<row r="1"><c r="A1"><v>${i}</v></c></row>`),
        status: 'failed',
        error: /^the spreadsheet has 1000 sheets, more than the limit of 200 \(SPREADSHEET_MAX_SHEETS\)$/,
      },
      {
        label: 'shared strings that expand a thousandfold',
        name: 'strings.xlsx',
        type: XLSX_TYPE,
        content: bomb,
        status: 'failed',
        error: new RegExp(`^document expands to more than ${MAX_EXPANDED_MB} MB$`),
      },
      {
        label: 'one shared string repeated in every cell',
        name: 'repeated.xlsx',
        type: XLSX_TYPE,
        content: laughs,
        status: 'failed',
        error: new RegExp(`^document expands to more than ${MAX_EXPANDED_MB} MB of text$`),
      },
      {
        label: 'a zip within a zip, named and typed as a workbook',
        name: 'budget-archive.xlsx',
        type: XLSX_TYPE,
        content: nested,
        status: 'failed',
        error: /^a zip archive holding other archives, not a document: unpack it/,
      },
      { label: 'an ordinary workbook', name: 'budget.xlsx', type: XLSX_TYPE, content: budget, status: 'ready' },
    ];
    const { projectId, sql } = h;
    const { status, docs, healthz } = await ingestProbed(h, cases, 150_000);
    expect(status).toBe(202);
    const outcomes = cases.map((c, i) => ({ label: c.label, status: docs[i].status, error: docs[i].error }));
    process.stdout.write(`hostile office set: ${JSON.stringify({ healthz, outcomes })}\n`);
    for (const [i, c] of cases.entries()) {
      expect({ label: c.label, status: docs[i].status }).toEqual({ label: c.label, status: c.status });
      if (c.error) expect({ label: c.label, error: docs[i].error }).toEqual({ label: c.label, error: expect.stringMatching(c.error) });
    }
    // a file problem fails on its first attempt (a zip that is no document, before any): the same bytes fail the same way
    const { rows } = await sql.query('select name, attempts from documents where project_id = $1', [projectId]);
    for (const row of rows) expect({ name: row.name, retried: row.attempts > 1 }).toEqual({ name: row.name, retried: false });
    expect(docs[cases.length - 1]).toMatchObject({ status: 'ready', pageCount: 2 });
    expect(healthz.failures).toBe(0);
    expect(healthz.count).toBeGreaterThan(20);
    expect(healthz.max).toBeLessThan(5000);
  });
});
