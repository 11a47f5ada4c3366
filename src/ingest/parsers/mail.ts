import { detectFormat } from '../detect';
import { LimitError, type ParseLimits, TextBudget } from '../limits';
import { HEADING_MARK, headingMark, pagesWithSections, stripMarks } from '../sections';
import { type DocumentKind, IngestError, type PageSource, type ParsedPage } from '../types';
import { htmlToText } from './html';
import { type MailAttachment, type MailMessage, readMime } from './mail-message';
import { readMsg } from './mail-msg';
import { mboxMessages } from './mbox';
import { classifyOle2 } from './ole2';

/** What the mail reader is given besides the file. */
export interface MailHooks {
  /** The file turned out to be another format than detected (an OLE2 file that is an Outlook message). */
  onFormat?: (kind: DocumentKind) => void;
  /** Reads an attachment of a supported format into its pages. */
  readAttachment: (kind: DocumentKind, buf: Buffer) => Promise<ParsedPage[]>;
}

/** Messages attached within messages are read this many levels deep (the outer message is level 1). */
export const MAIL_MAX_DEPTH = 8;

/** Signature parts are not documents: they are neither read nor listed as not read. */
const SIGNATURE_TYPES = new Set(['application/pgp-signature', 'application/pkcs7-signature', 'application/x-pkcs7-signature']);

/** Bytes of an attachment's start that detection looks at for a text format (signatures and zips are read from the whole). */
const HEAD_BYTES = 64 * 1024;

/** A heading mark and its level digit. */
const MARK_LEVEL = new RegExp(`${HEADING_MARK}(\\d)`, 'g');

/** Heading marks of converted text moved `by` levels down (an HTML body's h1 sits under the subject). */
function nestMarks(text: string, by: number): string {
  if (!text.includes(HEADING_MARK)) return text;
  return text.replace(MARK_LEVEL, (_, d: string) => headingMark(Number(d) === 0 ? 0 : Number(d) + by));
}

/** A date as a reader of the mail sees it: "Tue, 03 Mar 2026 10:00:00 GMT". */
const formatDate = (date: Date) => date.toUTCString();

/**
 * One mail document being read: its pages so far, and the counts its limits are held to across
 * all its messages (an MBOX's together).
 */
class MailDocument {
  readonly pages: ParsedPage[] = [];
  private attachments = 0;
  private readonly budget: TextBudget;

  constructor(
    private readonly limits: ParseLimits,
    private readonly hooks: MailHooks,
  ) {
    this.budget = new TextBudget(limits.maxExpandedBytes);
  }

  /** Counts an attachment met in any message of the document against MAIL_MAX_ATTACHMENTS. */
  readonly countAttachment = (): void => {
    if (++this.attachments > this.limits.maxAttachments)
      throw new LimitError(`the mail has more than ${this.limits.maxAttachments} attachments (MAIL_MAX_ATTACHMENTS)`);
  };

  /** Adds pages, numbered on from the document's last, within the page and text limits. */
  private push(page: Omit<ParsedPage, 'pageNumber'>): void {
    this.budget.add(page.text.length);
    const pageNumber = this.pages.length + 1;
    if (pageNumber > this.limits.pdfMaxPages)
      throw new LimitError(`the mail has more than ${this.limits.pdfMaxPages} pages, the limit of pages per document`);
    this.pages.push({ ...page, pageNumber });
  }

  /** Converted text (heading marks included) as pages of their own, starting on a new page. */
  private addText(text: string): void {
    for (const { pageNumber: _, ...page } of pagesWithSections(text)) this.push(page);
  }

  /**
   * An attachment's pages as a section headed by its name, `level` deep: the name opens its first
   * page, and the attachment's own headings are nested below it.
   */
  private addSection(title: string, level: number, pages: ParsedPage[]): void {
    const heading = `${title}\n\n`;
    const nest = (sections: ParsedPage['sections'], shift: number) =>
      (sections ?? []).map((s) => ({ ...s, offset: s.offset + shift, ...(s.level ? { level: Math.min(9, s.level + level) } : {}) }));
    if (!pages.length) pages = [{ pageNumber: 1, text: '' }];
    pages.forEach(({ pageNumber: _, ...page }, i) => {
      if (i > 0) return this.push({ ...page, sections: page.sections && nest(page.sections, 0) });
      this.push({ ...page, text: heading + page.text, sections: [{ offset: 0, title, level }, ...nest(page.sections, heading.length)] });
    });
  }

  /**
   * A message: its subject (or, for an attached message, `name`) a heading `level` deep, its
   * From, To, Cc and Date lines, its body (HTML read as HTML), a line naming the attachments not
   * read, then each attachment read as a section one level under it.
   */
  async message(msg: MailMessage, level: number, depth: number, name: string | null = null): Promise<void> {
    if (depth > MAIL_MAX_DEPTH)
      throw new LimitError(`the mail nests attached messages more than ${MAIL_MAX_DEPTH} deep (the mail reader's nesting limit)`);
    const title = oneLine(name || msg.subject || '(no subject)');
    const header = [
      name && msg.subject ? `Subject: ${msg.subject}` : '',
      msg.from ? `From: ${msg.from}` : '',
      msg.to ? `To: ${msg.to}` : '',
      msg.cc ? `Cc: ${msg.cc}` : '',
      msg.date ? `Date: ${formatDate(msg.date)}` : '',
    ].filter(Boolean);
    const body = msg.html ? nestMarks(htmlToText(stripMarks(msg.html), this.limits), level) : stripMarks(msg.text ?? '');
    const toRead: Array<{ attachment: MailAttachment; name: string; kind: DocumentKind | 'message' }> = [];
    const notRead: string[] = [];
    for (const [i, attachment] of msg.attachments.entries()) {
      if (attachment.inline || SIGNATURE_TYPES.has(attachment.contentType ?? '')) continue;
      const fileName = oneLine(attachment.name ?? '') || (attachment.message ? 'attached message' : `attachment ${i + 1}`);
      if (attachment.message) {
        toRead.push({ attachment, name: fileName, kind: 'message' });
        continue;
      }
      const content = attachment.content();
      const found = await detectFormat(fileName, attachment.contentType ?? undefined, content.subarray(0, HEAD_BYTES), { buffer: content });
      if (found.kind) toRead.push({ attachment, name: fileName, kind: found.kind });
      else notRead.push(`${fileName} (${found.reason})`);
    }
    const parts = [
      `${headingMark(level)}${title}`,
      header.join('\n'),
      body,
      toRead.length ? `Attachments: ${toRead.map((a) => a.name).join(', ')}` : '',
      notRead.length ? `Attachments not read: ${notRead.join('; ')}` : '',
    ];
    this.addText(parts.filter((p) => p.trim()).join('\n\n'));
    for (const { attachment, name: fileName, kind } of toRead) await this.attachment(attachment, fileName, kind, level + 1, depth);
  }

  /** Reads one attachment as a section `level` deep: a message as a message, any other supported format through the dispatcher. */
  private async attachment(
    attachment: MailAttachment,
    name: string,
    kind: DocumentKind | 'message',
    level: number,
    depth: number,
  ): Promise<void> {
    let pages: ParsedPage[];
    try {
      if (kind === 'message' || kind === 'eml' || kind === 'msg' || kind === 'ole2' || kind === 'mbox') {
        const messages = this.nestedMessages(attachment.content(), kind === 'message' ? (attachment.message ?? 'eml') : kind);
        let first = true;
        for await (const nested of messages) {
          // an attached message's section is named after its file, when it has one, else its subject
          await this.message(nested, level, depth + 1, first ? attachment.name && name : null);
          first = false;
        }
        return;
      }
      pages = await this.hooks.readAttachment(kind, attachment.content());
    } catch (e) {
      // a limit fails the whole document; an attachment that cannot be read is named with why
      if (e instanceof LimitError || !(e instanceof IngestError)) throw e;
      pages = [{ pageNumber: 1, text: `This attachment could not be read: ${e.message}` }];
    }
    this.addSection(name, level, pages);
  }

  /** The messages of an attached message or mailbox (an OLE2 file only if it is an Outlook message). */
  private async *nestedMessages(buf: Buffer, kind: 'eml' | 'msg' | 'ole2' | 'mbox'): AsyncGenerator<MailMessage> {
    if (kind === 'ole2') {
      const found = classifyOle2(buf);
      if (!found.kind) throw new IngestError(found.reason);
    }
    if (kind === 'msg' || kind === 'ole2') yield readMsg(buf, this.countAttachment);
    else if (kind === 'eml') yield await readMime(buf, this.countAttachment);
    else for (const message of mboxMessages(buf)) yield await readMime(message, this.countAttachment);
  }
}

/** A title on one line: no line breaks or runs of blanks. */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * Reads an e-mail: an EML (MIME, with mailparser), each message of an MBOX on a page of its own
 * (one section per message), or an Outlook MSG (msgreader). An OLE2 file is classified first
 * (cfb): an Outlook message is read as MSG (`onFormat('msg')`); a legacy Word, Excel or
 * PowerPoint file or an encrypted Office file fails with what to do. Attachments of a supported
 * format are read into the document, each a section named after it; attached messages are read
 * as messages, MAIL_MAX_DEPTH deep. Limits: MAIL_MAX_ATTACHMENTS for the whole document, the
 * text budget, and the page limit.
 */
export async function parseMail(
  kind: 'eml' | 'mbox' | 'msg' | 'ole2',
  buf: Buffer,
  limits: ParseLimits,
  hooks: MailHooks,
): Promise<PageSource> {
  const doc = new MailDocument(limits, hooks);
  if (kind === 'ole2') {
    const found = classifyOle2(buf);
    if (!found.kind) throw new IngestError(found.reason);
    hooks.onFormat?.('msg');
    kind = 'msg';
  }
  if (kind === 'msg') await doc.message(readMsg(buf, doc.countAttachment), 1, 1);
  else if (kind === 'eml') await doc.message(await readMime(buf, doc.countAttachment), 1, 1);
  else for (const message of mboxMessages(buf)) await doc.message(await readMime(message, doc.countAttachment), 1, 1);
  const { pages } = doc;
  return () => pages;
}
