import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import JSZip from 'jszip';
import { detectFormat, KNOWN_EXTENSIONS, kindOfMime, MIME_BY_KIND, mimeTypeFor } from '../../../src/ingest/detect';
import { DOCUMENT_KINDS } from '../../../src/ingest/types';

/** Detection of bytes held in memory (as a GraphQL upload arrives). */
const detect = (name: string, mime: string | undefined, bytes: Buffer) =>
  detectFormat(name, mime, bytes.subarray(0, 4096), { buffer: bytes });
const kindOf = async (name: string, mime: string | undefined, bytes: Buffer) => (await detect(name, mime, bytes)).kind;

/** A zip holding `files` (name → content), the first entry stored as ODF and EPUB require for `mimetype`. */
async function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new JSZip();
  for (const [name, content] of Object.entries(files)) zip.file(name, content, name === 'mimetype' ? { compression: 'STORE' } : {});
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

const contentTypes = (main: string) =>
  `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  `<Default Extension="xml" ContentType="application/xml"/><Override PartName="/x/main.xml" ContentType="${main}"/></Types>`;

describe('format detection by content', () => {
  it('names a zip by what it holds: the main part for DOCX, XLSX and PPTX, the mimetype entry for ODT, ODS, ODP and EPUB', async () => {
    const ooxml = {
      docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
      xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
      pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml',
    };
    for (const [kind, main] of Object.entries(ooxml)) {
      const zip = await zipOf({ '_rels/.rels': '<Relationships/>', 'x/main.xml': '<x/>', '[Content_Types].xml': contentTypes(main) });
      // whatever the name says: the extension is a hint only
      expect({ kind, found: await kindOf('upload.docx', 'application/octet-stream', zip) }).toEqual({ kind, found: kind });
    }
    const odf = {
      odt: 'application/vnd.oasis.opendocument.text',
      ods: 'application/vnd.oasis.opendocument.spreadsheet',
      odp: 'application/vnd.oasis.opendocument.presentation',
      epub: 'application/epub+zip',
    };
    for (const [kind, mime] of Object.entries(odf)) {
      const zip = await zipOf({ mimetype: mime, 'content.xml': '<x/>' });
      expect({ kind, found: await kindOf('file.docx', undefined, zip) }).toEqual({ kind, found: kind });
    }
  });

  it('reads the zip from the upload file on disk as well as from memory', async () => {
    const zip = await zipOf({ mimetype: 'application/vnd.oasis.opendocument.text', 'content.xml': '<x/>' });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'detect-'));
    writeFileSync(path.join(dir, 'upload'), zip);
    expect((await detectFormat('policy', undefined, zip.subarray(0, 1024), { path: path.join(dir, 'upload') })).kind).toBe('odt');
  });

  it('refuses an archive, an archive of archives and a damaged zip with a reason that names no office format', async () => {
    const plain = await zipOf({ 'a.txt': 'hello', 'b.txt': 'world' });
    const nested = await zipOf({ 'inner.zip': plain });
    const cases: Array<[Buffer, RegExp]> = [
      [plain, /^a zip archive, not a document: unpack it/],
      [nested, /^a zip archive holding other archives/],
      [Buffer.concat([plain.subarray(0, 40)]), /^a damaged zip file/],
    ];
    for (const [bytes, reason] of cases) {
      const found = await detect('budget.xlsx', MIME_BY_KIND.xlsx, bytes);
      expect(found.kind).toBeNull();
      expect(found.reason).toMatch(reason);
      expect(found.reason).not.toMatch(/DOCX|XLSX|Word|Excel/);
    }
  });

  it('knows images, RTF, PDF and OLE2 compound files by their signatures, whatever their names say', async () => {
    const signatures: Array<[string, Buffer]> = [
      ['png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])],
      ['jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16])],
      ['gif', Buffer.from('GIF89a\x01\x00')],
      ['tiff', Buffer.from('II*\0\x08\0\0\0')],
      ['tiff', Buffer.from('MM\0*\0\0\0\x08')],
      ['webp', Buffer.from('RIFF\x24\0\0\0WEBPVP8 ')],
      ['rtf', Buffer.from('{\\rtf1\\ansi\\deff0 {\\fonttbl}Hello}')],
      ['pdf', Buffer.from('%PDF-1.7\n')],
      ['ole2', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0])],
    ];
    for (const [kind, bytes] of signatures) {
      expect({ kind, found: await kindOf('notice.txt', 'text/plain', bytes) }).toEqual({ kind, found: kind });
      expect({ kind, found: await kindOf('blob', undefined, bytes) }).toEqual({ kind, found: kind });
    }
  });

  it('reads mail by its headers, an MBOX by its From line, HTML by its start, and the text formats by their name or type', async () => {
    const eml = Buffer.from(
      'Received: from mx\r\nFrom: Canteen <canteen@example.org>\r\nTo: all@example.org\r\nSubject: Menu\r\n\r\nSoup.',
    );
    expect(await kindOf('message', undefined, eml)).toBe('eml');
    expect(await kindOf('message.eml', 'message/rfc822', Buffer.from('Hello'))).toBe('eml');
    const mbox = Buffer.from('From alice@example.org Mon Nov 23 10:00:00 2026\nFrom: alice@example.org\nSubject: A\n\nBody\n');
    expect(await kindOf('archive', 'application/octet-stream', mbox)).toBe('mbox');
    expect(await kindOf('page', undefined, Buffer.from('  <!DOCTYPE html><html>'))).toBe('html');
    expect(await kindOf('export.csv', 'application/vnd.ms-excel', Buffer.from('a,b\n1,2\n'))).toBe('csv');
    expect(await kindOf('export', 'text/csv', Buffer.from('a,b\n1,2\n'))).toBe('csv');
    expect(await kindOf('export.tsv', undefined, Buffer.from('a\tb\n1\t2\n'))).toBe('tsv');
    expect(await kindOf('notes', 'text/markdown; charset=utf-8', Buffer.from('x'))).toBe('markdown');
    // a Markdown file that quotes mail headers stays Markdown: its name says so
    expect(await kindOf('notes.md', undefined, eml)).toBe('markdown');
  });

  it('reads a file whose name claims a binary format but whose bytes are text as text, and refuses binary bytes with a reason that names what the file is not', async () => {
    expect(await kindOf('a.PDF', 'application/octet-stream', Buffer.from('just words'))).toBe('text');
    expect(await kindOf('report.pdf', 'application/pdf', Buffer.from('<!doctype html><html><body>x'))).toBe('html');
    const binary = Buffer.from([0x00, 0x01, 0x02, 0x03, 0xfe, 0x00]);
    const claimed = await detect('scan.pdf', 'application/pdf', binary);
    expect(claimed).toEqual({ kind: null, reason: 'the file is not a PDF file: its content does not start as one does' });
    expect((await detect('data.bin', 'application/octet-stream', binary)).reason).toBe('unsupported file type');
  });

  it('reads manuals and files no name or type places as text when their bytes are text', async () => {
    for (const name of ['sed.info', 'index.rst', 'git-commit.adoc', 'guide.asciidoc', 'README', 'sshd_config.5'])
      expect({ name, kind: await kindOf(name, 'application/octet-stream', Buffer.from('.TH X 5\nplain words\n')) }).toEqual({
        name,
        kind: 'text',
      });
    // a UTF-8 character cut at the end of the head still reads as text
    expect(await kindOf('README', undefined, Buffer.from('caf\u00e9').subarray(0, 4))).toBe('text');
    expect(await kindOf('blob', undefined, Buffer.from([0xff, 0xfe, 0xfd, 0x00]))).toBeNull();
  });

  it('records a canonical mime type for every format that maps back to the same reader', () => {
    for (const kind of DOCUMENT_KINDS) expect({ kind, back: kindOfMime(mimeTypeFor(kind, undefined)) }).toEqual({ kind, back: kind });
    expect(kindOfMime('text/rtf')).toBe('rtf');
    expect(mimeTypeFor(null, 'image/x-unknown')).toBe('image/x-unknown');
    expect(mimeTypeFor(null, 'bogus type')).toBe('application/octet-stream');
  });

  it("the web app's file picker offers exactly the extensions the server reads", () => {
    const source = readFileSync(path.join(__dirname, '../../../web/ui/Documents.tsx'), 'utf8');
    const accept = /const ACCEPT =\s*'([^']*)'/.exec(source)![1].split(',');
    expect([...accept].sort()).toEqual([...KNOWN_EXTENSIONS].sort());
  });
});
