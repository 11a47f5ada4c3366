import type { ParseLimits } from '../limits';
import { DocumentKind, IngestError, PageSource, ParsedPage } from '../types';

/** What the mail reader is given besides the file. */
export interface MailHooks {
  /** The file turned out to be another format than detected (an OLE2 file that is an Outlook message). */
  onFormat?: (kind: DocumentKind) => void;
  /** Reads an attachment of a supported format into its pages. */
  readAttachment: (kind: DocumentKind, buf: Buffer) => Promise<ParsedPage[]>;
}

/** Reads an e-mail (EML, MBOX, MSG; an OLE2 file is classified first). Placeholder until the mail reader lands. */
export async function parseMail(
  kind: 'eml' | 'mbox' | 'msg' | 'ole2',
  _buf: Buffer,
  _limits: ParseLimits,
  _hooks: MailHooks,
): Promise<PageSource> {
  throw new IngestError(`${kind.toUpperCase()} files are not read yet`);
}
