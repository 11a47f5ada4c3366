import yauzl from 'yauzl';
import type { DocumentKind } from './types';

/** How an upload is to be read: a format, or why none applies (the document then fails with `reason`). */
export type Detection = { kind: DocumentKind; reason?: undefined } | { kind: null; reason: string };

/** Where a zip upload's bytes are: the upload's temporary file, or a buffer. */
export type ContainerSource = { path: string } | { buffer: Buffer };

/** The `mimetype` entry's value of each OpenDocument and EPUB format we read. */
const KIND_BY_PACKAGE_MIME: Record<string, DocumentKind> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/epub+zip': 'epub',
};

/**
 * The main part's content type in `[Content_Types].xml`, by the format it marks (macro-enabled and
 * template variants read as their format: the parsers never run macros).
 */
const OOXML_MAIN: Array<[RegExp, DocumentKind]> = [
  [/(wordprocessingml\.(document|template)|ms-word\.(document|template)\.macroenabled)\.main\+xml/i, 'docx'],
  [/(spreadsheetml\.(sheet|template)|ms-excel\.(sheet|template)\.macroenabled)\.main\+xml/i, 'xlsx'],
  [
    /(presentationml\.(presentation|slideshow|template)|ms-powerpoint\.(presentation|slideshow|template)\.macroenabled)\.main\+xml/i,
    'pptx',
  ],
];

/** Central-directory entries looked at before giving up on finding the format's marker. */
const MAX_ENTRIES = 20_000;
/** The most bytes read from a marker entry (`mimetype` is ~40 bytes, `[Content_Types].xml` a few KB). */
const MAX_MARKER_BYTES = 256 * 1024;

/** The OpenDocument/EPUB package mime, or an OOXML format by its main part. */
function formatOfMarker(name: string, content: string): DocumentKind | null {
  if (name === 'mimetype') return KIND_BY_PACKAGE_MIME[content.trim()] ?? null;
  for (const m of content.matchAll(/ContentType\s*=\s*"([^"]*)"/g)) for (const [re, kind] of OOXML_MAIN) if (re.test(m[1])) return kind;
  return null;
}

/**
 * Reads a zip's central directory (no entry is inflated but the small marker entries) and names
 * the format it holds: DOCX, XLSX or PPTX by `[Content_Types].xml`'s main part, ODT, ODS, ODP or
 * EPUB by the `mimetype` entry. Reads the upload's temporary file asynchronously, so detection
 * never holds up the event loop; a zip that is none of them (an archive of other files, a zip
 * within a zip) is refused with a reason saying so.
 */
export async function sniffContainer(src: ContainerSource): Promise<Detection> {
  const options = { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, autoClose: false };
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
      const done = (err: Error | null, z?: yauzl.ZipFile) => (err || !z ? reject(err ?? new Error('unreadable')) : resolve(z));
      if ('path' in src) yauzl.open(src.path, options, done);
      else yauzl.fromBuffer(src.buffer, options, done);
    });
  } catch (e) {
    return { kind: null, reason: `a damaged zip file (${(e as Error).message.split('\n')[0]})` };
  }
  const markers: Record<string, string> = {};
  let entries = 0;
  let nestedArchives = 0;
  let encrypted = false;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        if (++entries > MAX_ENTRIES) return resolve();
        const name = entry.fileName;
        if (/\.(zip|jar|7z|rar|gz|tgz)$/i.test(name)) nestedArchives++;
        if ((name === 'mimetype' || name === '[Content_Types].xml') && entry.uncompressedSize <= MAX_MARKER_BYTES) {
          if (entry.isEncrypted()) {
            encrypted = true;
            return zip.readEntry();
          }
          zip.openReadStream(entry, (err, stream) => {
            if (err || !stream) return reject(err ?? new Error('unreadable entry'));
            const parts: Buffer[] = [];
            let size = 0;
            stream.on('data', (c: Buffer) => {
              size += c.length;
              if (size <= MAX_MARKER_BYTES) parts.push(c);
            });
            stream.on('error', reject);
            stream.on('end', () => {
              markers[name] = Buffer.concat(parts).toString('utf8');
              zip.readEntry();
            });
          });
        } else zip.readEntry();
      });
      zip.readEntry();
    });
  } catch (e) {
    return { kind: null, reason: `a damaged zip file (${(e as Error).message.split('\n')[0]})` };
  } finally {
    zip.close();
  }
  for (const name of ['mimetype', '[Content_Types].xml']) {
    const kind = name in markers ? formatOfMarker(name, markers[name]) : null;
    if (kind) return { kind };
  }
  if (encrypted) return { kind: null, reason: 'an encrypted zip file: remove its password and upload it again' };
  if ('mimetype' in markers)
    return { kind: null, reason: `an OpenDocument package of a kind not read (${markers.mimetype.trim().slice(0, 80)})` };
  if ('[Content_Types].xml' in markers)
    return { kind: null, reason: 'an Office Open XML package of a kind not read (not a DOCX, XLSX or PPTX)' };
  return {
    kind: null,
    reason: nestedArchives
      ? 'a zip archive holding other archives, not a document: unpack it and upload the documents inside'
      : 'a zip archive, not a document: unpack it and upload the documents inside',
  };
}
