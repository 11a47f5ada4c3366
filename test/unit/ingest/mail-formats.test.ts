import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as CFB from 'cfb';
import { loadConfig } from '../../../src/config';
import { detectFormat } from '../../../src/ingest/detect';
import { LimitError } from '../../../src/ingest/limits';
import { readWhole } from '../../../src/ingest/parsers';
import { parseMail } from '../../../src/ingest/parsers/mail';
import { ParserPool } from '../../../src/ingest/parsers/pool';
import { DocumentKind, IngestError, ParsedPage } from '../../../src/ingest/types';
import { makeDocx } from '../../support/docx';
import { manyAttachments, mimeMessage, nestedMessages, nestedMultiparts } from '../../support/mail';

// every parse goes through the worker pool, as ingestion runs it
const config = loadConfig({ JWT_SECRET: 'unit-secret-unit-secret', NODE_ENV: 'test' });
const pool = new ParserPool(config.parseLimits, config.parserPool);
// a pool whose documents may carry three attachments at most
const strict = new ParserPool({ ...config.parseLimits, maxAttachments: 3 }, { ...config.parserPool, threads: 1 });
afterAll(() => Promise.all([pool.destroy(), strict.destroy()]));

const FIXTURES = path.join(__dirname, '../../fixtures/formats/mail');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
const detect = async (name: string, type: string | undefined, buf: Buffer) => (await detectFormat(name, type, buf, { buffer: buf })).kind;
const titles = (page: ParsedPage) => (page.sections ?? []).map((s) => [s.title, s.level]);

describe('mail and OLE2 files are detected by content', () => {
  it.each<[string, string, DocumentKind]>([
    ['lease-renewal.eml', 'message/rfc822', 'eml'],
    ['facilities.mbox', 'application/mbox', 'mbox'],
    // the signature decides: the reader then tells an Outlook message from an Office 97 file
    ['fire-drill.msg', 'application/vnd.ms-outlook', 'ole2'],
    ['legacy-memo.doc', 'application/msword', 'ole2'],
    ['legacy-budget.xls', 'application/vnd.ms-excel', 'ole2'],
    ['legacy-slides.ppt', 'application/vnd.ms-powerpoint', 'ole2'],
  ])('%s is %s with its browser type, with no type, and with neither name nor type', async (name, type, kind) => {
    const buf = fixture(name);
    expect(await detect(name, type, buf)).toBe(kind);
    expect(await detect(name, undefined, buf)).toBe(kind);
    expect(await detect('upload', undefined, buf)).toBe(kind);
  });
});

describe('EML (mailparser)', () => {
  it('reads the subject as the title, the header block, the HTML body as text and the DOCX attachment as a section named after it', async () => {
    const pages = await pool.parse('eml', fixture('lease-renewal.eml'));
    expect(pages.map((p) => p.pageNumber)).toEqual([1, 2]);
    const [message, attachment] = pages;
    expect(titles(message)).toEqual([['Alcântara warehouse lease: signed copy', 1]]);
    expect(message.text).toContain(
      [
        'From: Inês Duarte <ines.duarte@example.com>',
        'To: Facilities team <facilities@example.com>',
        'Cc: Tom Berger <tom.berger@example.com>',
        'Date: Tue, 03 Mar 2026 10:15:00 GMT',
      ].join('\n'),
    );
    // the HTML alternative, read as HTML (a table row by row), decoded from quoted-printable
    expect(message.text).toContain('The landlord has countersigned the lease for the Alcântara warehouse.');
    expect(message.text).toContain('Site | Loading bays\n\nAlcântara | 6');
    for (const raw of ['Content-Type', 'Content-Transfer-Encoding', 'MIME-Version', 'boundary', '=C3', '<p>', 'base64', 'Message-ID'])
      expect(message.text).not.toContain(raw);
    // the zip is named with why it was not read; the DOCX is read
    expect(message.text).toContain('Attachments: lease-terms.docx');
    expect(message.text).toContain('Attachments not read: floor-plans.zip (a zip archive, not a document');
    expect(titles(attachment)).toEqual([
      ['lease-terms.docx', 2],
      ['Lisbon warehouse lease', 3],
      ['Rent and renewal', 4],
      ['Notice period', 4],
    ]);
    expect(attachment.text.startsWith('lease-terms.docx\n\nLisbon warehouse lease')).toBe(true);
    expect(attachment.text).toContain('The lease renews on 14 September 2027.');
    // each section's offset is where its title stands
    for (const s of attachment.sections ?? []) expect(attachment.text.slice(s.offset, s.offset + s.title.length)).toBe(s.title);
  });

  it('reads an attached message as a message one level down; an attachment that cannot be read is named with why', async () => {
    const inner = mimeMessage('Parking permits', 'Permits for the west car park are renewed in April.');
    const eml = mimeMessage('Fwd: parking', 'See the message below.', [
      { type: 'message/rfc822', content: inner },
      {
        name: 'broken.pdf',
        type: 'application/pdf',
        content: Buffer.from('%PDF-1.4\nthis is not really a pdf at all\n%%EOF'),
      },
      { name: 'notes.txt', type: 'text/plain', content: 'Visitors sign in at the front desk.' },
    ]);
    const pages = await pool.parse('eml', Buffer.from(eml));
    expect(pages.map((p) => titles(p)[0])).toEqual([
      ['Fwd: parking', 1],
      ['Parking permits', 2],
      ['broken.pdf', 2],
      ['notes.txt', 2],
    ]);
    expect(pages[1].text).toContain('Permits for the west car park are renewed in April.');
    expect(pages[2].text).toMatch(/^broken\.pdf\n\nThis attachment could not be read: .*PDF/);
    expect(pages[3].text).toBe('notes.txt\n\nVisitors sign in at the front desk.');
  });

  it('fails a message with more attachments than MAIL_MAX_ATTACHMENTS, naming the limit', async () => {
    await expect(strict.parse('eml', Buffer.from(manyAttachments(3)))).resolves.toHaveLength(4);
    const failed = strict.parse('eml', Buffer.from(manyAttachments(4)));
    await expect(failed).rejects.toThrow(LimitError);
    await expect(strict.parse('eml', Buffer.from(manyAttachments(4)))).rejects.toThrow(
      'the mail has more than 3 attachments (MAIL_MAX_ATTACHMENTS)',
    );
  });

  it('reads attached messages to a bounded depth, and fails deeper nesting with the named limit', async () => {
    const eight = await pool.parse('eml', Buffer.from(nestedMessages(8, 'The innermost note.')));
    expect(eight.map((p) => titles(p)[0])).toEqual(Array.from({ length: 8 }, (_, i) => [`Level ${i + 1}`, i + 1]));
    expect(eight[7].text).toContain('The innermost note.');
    await expect(pool.parse('eml', Buffer.from(nestedMessages(9)))).rejects.toThrow(
      "the mail nests attached messages more than 8 deep (the mail reader's nesting limit)",
    );
  });

  it('reads parts nested a few deep, and fails a message of thousands of nested parts with the MIME limit', async () => {
    const [page] = await pool.parse('eml', Buffer.from(nestedMultiparts(20)));
    expect(page.text).toContain('The innermost part.');
    await expect(pool.parse('eml', Buffer.from(nestedMultiparts(5000)))).rejects.toThrow(
      "the message is beyond the mail reader's MIME limits (max allowed child nodes exceeded)",
    );
  });
});

describe('MBOX', () => {
  it('is one document with each message on a page of its own, headed by its subject, >From lines unescaped', async () => {
    const pages = await pool.parse('mbox', fixture('facilities.mbox'));
    expect(pages.map((p) => [p.pageNumber, ...titles(p)])).toEqual([
      [1, ['Boiler service on Friday', 1]],
      [2, ['Bicycle shed access', 1]],
      [3, ['Canteen menu', 1]],
    ]);
    expect(pages[0].text).toContain('Date: Mon, 02 Mar 2026 09:00:00 GMT\n\nThe boiler in building C is serviced on Friday morning');
    expect(pages[1].text).toContain('\n\nFrom Monday on, the old keys no longer work.');
    expect(pages[2].text).toContain('vegetarian lasagne');
    for (const page of pages) expect(page.text).not.toMatch(/MAILER-DAEMON|Content-Transfer-Encoding|=\n/);
  });

  it('starts a message only at a From line after an empty line, and unescapes one > of >From and >>From (mboxrd)', async () => {
    const mbox = [
      'From a@example.com Tue Mar  3 10:15:00 2026',
      'From: a@example.com',
      'Subject: Quotes',
      '',
      'The minutes say:',
      'From now on the lift is serviced monthly.',
      '>From the archive:',
      '>>From the older archive.',
      '',
      'From b@example.com Tue Mar  3 10:16:00 2026',
      'From: b@example.com',
      'Subject: Second',
      '',
      'Second body.',
      '',
    ].join('\n');
    const pages = await pool.parse('mbox', Buffer.from(mbox));
    expect(pages.map((p) => titles(p)[0])).toEqual([
      ['Quotes', 1],
      ['Second', 1],
    ]);
    expect(pages[0].text).toContain(
      'The minutes say:\nFrom now on the lift is serviced monthly.\nFrom the archive:\n>From the older archive.',
    );
  });

  it("counts an MBOX's attachments together against MAIL_MAX_ATTACHMENTS", async () => {
    const two = (subject: string) =>
      mimeMessage(subject, 'Two notes.', [
        { name: 'a.txt', type: 'text/plain', content: 'A.' },
        { name: 'b.txt', type: 'text/plain', content: 'B.' },
      ]);
    const mbox = `From a@example.com Tue Mar  3 10:15:00 2026\n${two('First')}\nFrom b@example.com Tue Mar  3 10:16:00 2026\n${two('Second')}\n`;
    await expect(strict.parse('mbox', Buffer.from(mbox))).rejects.toThrow('MAIL_MAX_ATTACHMENTS');
  });
});

describe('Outlook MSG (msgreader) and other OLE2 files (cfb)', () => {
  it('reads an OLE2 file that is an Outlook message: subject, sender, recipients, date, body and attachment', async () => {
    const pages = await pool.parse('ole2', fixture('fire-drill.msg'));
    expect(titles(pages[0])).toEqual([['Fire drill on Thursday', 1]]);
    expect(pages[0].text).toContain(
      [
        'From: Marta Kovač <marta.kovac@example.com>',
        'To: All staff Berlin <staff-berlin@example.com>, Reception <reception@example.com>',
        'Cc: Jonas Weber <jonas.weber@example.com>',
        'Date: Tue, 10 Mar 2026 08:30:00 GMT',
      ].join('\n'),
    );
    expect(pages[0].text).toContain('The quarterly fire drill takes place on Thursday 12 March at 10:00.');
    expect(pages[0].text).not.toMatch(/<p>|<b>/);
    expect(titles(pages[1])).toEqual([['assembly-points.txt', 2]]);
    expect(pages[1].text).toContain('Building D gathers in the car park behind the gym');
  });

  it('tells the pipeline that the OLE2 file is an Outlook message', async () => {
    const formats: DocumentKind[] = [];
    const limits = config.parseLimits;
    const source = await parseMail('ole2', fixture('fire-drill.msg'), limits, {
      onFormat: (kind) => formats.push(kind),
      readAttachment: (kind, buf) => readWhole(kind, buf, limits),
    });
    expect(formats).toEqual(['msg']);
    expect([...source()].length).toBe(2);
  });

  it.each([
    ['legacy-memo.doc', 'a legacy Word 97–2003 document (.doc): save it as DOCX and upload that'],
    ['legacy-budget.xls', 'a legacy Excel 97–2003 workbook (.xls): save it as XLSX and upload that'],
    ['legacy-slides.ppt', 'a legacy PowerPoint 97–2003 presentation (.ppt): save it as PPTX and upload that'],
  ])('fails %s with the format and what to do', async (name, reason) => {
    const failed = pool.parse('ole2', fixture(name));
    await expect(failed).rejects.toThrow(IngestError);
    await expect(pool.parse('ole2', fixture(name))).rejects.toThrow(reason);
  });

  it('fails a password-protected Office file (an OLE2 container of EncryptionInfo and EncryptedPackage) and a damaged one', async () => {
    const container = CFB.utils.cfb_new();
    CFB.utils.cfb_add(container, '/EncryptionInfo', Buffer.alloc(64, 1));
    CFB.utils.cfb_add(container, '/EncryptedPackage', Buffer.alloc(4096, 2));
    const encrypted = Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
    await expect(pool.parse('ole2', encrypted)).rejects.toThrow(
      'a password-protected Office file: remove the password and upload it again',
    );
    await expect(pool.parse('ole2', encrypted.subarray(0, 700))).rejects.toThrow(/damaged OLE2|not a readable/);
  });

  it('reads a DOCX attached to an Outlook message through the same reader as an upload', async () => {
    const docx = await makeDocx([{ text: 'Kitchen rota', heading: 1 }, { text: 'The third floor cleans the kitchen in May.' }]);
    const pages = await pool.parse(
      'eml',
      Buffer.from(mimeMessage('Rota', 'Attached.', [{ name: 'rota.docx', type: 'application/octet-stream', content: docx }])),
    );
    expect(titles(pages[1]).slice(0, 2)).toEqual([
      ['rota.docx', 2],
      ['Kitchen rota', 3],
    ]);
  });
});
