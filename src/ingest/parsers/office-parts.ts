import { DomUtils, parseDocument } from 'htmlparser2';
import yauzl from 'yauzl';
import { IngestError } from '../types';

/** An element of a parsed XML part. */
type Element = ReturnType<typeof DomUtils.findAll>[number];

/** The most bytes read from one package part we read ourselves (a workbook's styles, a slide's relationships). */
const MAX_PART_BYTES = 8 * 1024 * 1024;

/**
 * Reads the named entries of a zip (small package parts: `xl/workbook.xml`, a slide's `.rels`) into
 * strings, by name; a missing entry is absent. Run after checkZip(), which has bounded the whole.
 */
export async function readParts(buf: Buffer, wanted: (name: string) => boolean, what: string): Promise<Map<string, string>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(buf, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (err, z) =>
      err ? reject(invalid(err, what)) : resolve(z),
    ),
  );
  const parts = new Map<string, string>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err: Error) => reject(invalid(err, what)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!wanted(entry.fileName) || entry.uncompressedSize > MAX_PART_BYTES) return zip.readEntry();
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(invalid(err ?? new Error('unreadable entry'), what));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', (e) => reject(invalid(e, what)));
          stream.on('end', () => {
            parts.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return parts;
}

function invalid(err: Error, what: string): IngestError {
  return new IngestError(`not a valid ${what} file (${err.message.split('\n')[0]})`);
}

/** An element's name without its namespace prefix (`x:sheet` → `sheet`). */
const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

/** The elements of an XML part with the given local name, in document order. */
export function xmlElements(xml: string | undefined, name: string): Element[] {
  if (!xml) return [];
  const doc = parseDocument(xml, { xmlMode: true });
  return DomUtils.findAll((e) => localName(e.name) === name, doc.children);
}

/** An attribute by its local name, whatever its prefix (`formatCode`, `date1904`). */
export function attr(e: Element, name: string): string | undefined {
  if (name in e.attribs) return e.attribs[name];
  for (const [k, v] of Object.entries(e.attribs)) if (localName(k) === name) return v;
  return undefined;
}

/** A relationship id attribute (`r:id`, whatever the prefix; never the element's own unprefixed `id`). */
export function relId(e: Element): string | undefined {
  for (const [k, v] of Object.entries(e.attribs)) if (k.includes(':') && localName(k) === 'id') return v;
  return undefined;
}

/** The package-relative path a relationship's target names, from the part that holds it (`xl/` + `worksheets/sheet1.xml`). */
export function resolveTarget(fromDir: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const out = fromDir.split('/').filter(Boolean);
  for (const seg of target.split('/')) {
    if (seg === '..') out.pop();
    else if (seg !== '.') out.push(seg);
  }
  return out.join('/');
}

/** A relationships part (`_rels/x.xml.rels`) as id → package path of its target. */
export function relationships(rels: string | undefined, fromDir: string): Map<string, { path: string; type: string }> {
  const out = new Map<string, { path: string; type: string }>();
  for (const r of xmlElements(rels, 'Relationship')) {
    const id = attr(r, 'Id');
    const target = attr(r, 'Target');
    if (id && target && attr(r, 'TargetMode') !== 'External')
      out.set(id, { path: resolveTarget(fromDir, target), type: attr(r, 'Type') ?? '' });
  }
  return out;
}

/**
 * The header rows of each table in an OpenDocument's `content.xml`, tables in document order, each
 * row as its cells' text. officeparser reads only a table's body rows (`table:table-row` children
 * of the table), so the rows Writer marks to repeat on every page (`table:table-header-rows`,
 * which pandoc and LibreOffice write for a table's header) are missing from its AST.
 */
export function odfHeaderRows(contentXml: string | undefined): string[][][] {
  if (!contentXml) return [];
  const doc = parseDocument(contentXml, { xmlMode: true });
  const isNamed = (name: string) => (n: { type: string; name?: string }) => n.type === 'tag' && localName(n.name ?? '') === name;
  return DomUtils.findAll(isNamed('table'), doc.children).map((table) =>
    table.children.filter(isNamed('table-header-rows')).flatMap((header) =>
      (header as Element).children.filter(isNamed('table-row')).map((row) =>
        (row as Element).children.filter(isNamed('table-cell')).map((cell) =>
          DomUtils.findAll((e) => ['p', 'h'].includes(localName(e.name)), [cell as Element])
            .map((p) => DomUtils.textContent(p).trim())
            .filter(Boolean)
            .join(' '),
        ),
      ),
    ),
  );
}

/**
 * Counts the matches of `pattern` (a global regex matching at most `span` characters) in the named
 * entries of a zip, inflating each as a stream, so nothing is held whole; stops at `stopAt`.
 */
export async function countInParts(
  buf: Buffer,
  wanted: (name: string) => boolean,
  pattern: RegExp,
  span: number,
  stopAt: number,
): Promise<number> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(buf, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (err, z) =>
      err ? reject(err) : resolve(z),
    ),
  );
  let count = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!wanted(entry.fileName)) return zip.readEntry();
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(err ?? new Error('unreadable entry'));
          let tail = '';
          stream.setEncoding('latin1');
          stream.on('data', (chunk: string) => {
            const text = tail + chunk;
            // a match lying wholly in the carried tail was counted with the previous chunk
            for (const m of text.matchAll(pattern)) if (m.index + m[0].length > tail.length) count++;
            tail = text.slice(-span);
            if (count >= stopAt) {
              stream.destroy();
              resolve();
            }
          });
          stream.on('error', reject);
          stream.on('end', () => zip.readEntry());
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return count;
}
