import * as CFB from 'cfb';
import { IngestError } from '../types';

/** What an OLE2 compound file holds: an Outlook message (read), or why it is not read. */
export type Ole2Kind = { kind: 'msg' } | { kind: null; reason: string };

/**
 * The formats an OLE2 file may be, by the streams at its root (MS-DOC's `WordDocument`, MS-XLS's
 * `Workbook` or Excel 5's `Book`, MS-PPT's `PowerPoint Document`, MS-OFFCRYPTO's
 * `EncryptedPackage`), each with what to do instead. Checked in order: an encrypted OOXML file
 * holds no other of them.
 */
const NOT_READ: Array<[string[], string]> = [
  [['EncryptedPackage'], 'a password-protected Office file: remove the password and upload it again'],
  [['WordDocument'], 'a legacy Word 97–2003 document (.doc): save it as DOCX and upload that'],
  [['Workbook', 'Book'], 'a legacy Excel 97–2003 workbook (.xls): save it as XLSX and upload that'],
  [['PowerPoint Document'], 'a legacy PowerPoint 97–2003 presentation (.ppt): save it as PPTX and upload that'],
  [['VisioDocument'], 'a legacy Visio drawing (.vsd): export it as PDF and upload that'],
];

/**
 * Tells what an OLE2 compound file is (read with `cfb`): an Outlook message has MS-OXMSG's
 * property stream and `__substg1.0_` value streams at its root; Office 97–2003 files and
 * encrypted Office files are named with what to do. Throws IngestError for a damaged file.
 */
export function classifyOle2(buf: Buffer): Ole2Kind {
  let container: CFB.CFB$Container;
  try {
    container = CFB.read(buf, { type: 'buffer' });
  } catch (e) {
    throw new IngestError(`a damaged OLE2 compound file (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
  }
  const root = rootNames(container);
  if (root.has('__properties_version1.0') && [...root].some((n) => n.startsWith('__substg1.0_'))) return { kind: 'msg' };
  for (const [names, reason] of NOT_READ) if (names.some((n) => root.has(n))) return { kind: null, reason };
  return {
    kind: null,
    reason:
      'an OLE2 compound file that is not an Outlook message nor an Office document read here: save it as PDF, DOCX, XLSX or PPTX and upload that',
  };
}

/** The names of the entries directly under the root storage. */
function rootNames(container: CFB.CFB$Container): Set<string> {
  const names = new Set<string>();
  container.FullPaths.forEach((p, i) => {
    // "Root Entry/WordDocument" (a storage's path ends with "/")
    const inner = p.replace(/\/$/, '').split('/');
    if (inner.length === 2) names.add(container.FileIndex[i].name);
  });
  return names;
}
