import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { MailParser, type AddressObject, type AttachmentStream, type EmailAddress, type HeaderValue, type MessageText } from 'mailparser';
import { LimitError } from '../limits';
import { IngestError } from '../types';

/** An attached file of a message. */
export interface MailAttachment {
  /** Its file name, when the message gives one. */
  name: string | null;
  contentType: string | null;
  /** An image the HTML body shows (`cid:`): part of the body, not a document of its own. */
  inline: boolean;
  /** An attached message (message/rfc822, an Outlook item attached in an Outlook message). */
  message: 'eml' | 'msg' | null;
  /** Its bytes (Outlook's embedded messages are written out only when read). */
  content: () => Buffer;
}

/** A message as the mail reader renders it, whether it came from MIME (EML, MBOX) or an Outlook MSG. */
export interface MailMessage {
  subject: string | null;
  from: string | null;
  to: string | null;
  cc: string | null;
  date: Date | null;
  html: string | null;
  text: string | null;
  attachments: MailAttachment[];
}

/** Bytes of the message handed to the parser at a time. */
const SLICE_BYTES = 16 * 1024;

function* slices(buf: Buffer): Generator<Buffer> {
  for (let at = 0; at < buf.length; at += SLICE_BYTES) yield buf.subarray(at, at + SLICE_BYTES);
}

/** One mailbox as people write it: "Ada Lovelace <ada@example.com>", or the name or address alone. */
function mailbox(a: EmailAddress): string {
  if (a.group) return `${a.name ? `${a.name}: ` : ''}${a.group.map(mailbox).join(', ')}`;
  const address = a.address ?? '';
  return a.name && address ? `${a.name} <${address}>` : a.name || address;
}

/** An address header's mailboxes on one line. */
function addresses(value: HeaderValue | undefined): string | null {
  if (!value) return null;
  const list: unknown[] = Array.isArray(value) ? value : [value];
  const text = list
    .flatMap((a) => (typeof a === 'object' && a && 'value' in a && Array.isArray(a.value) ? (a as AddressObject).value.map(mailbox) : []))
    .filter(Boolean)
    .join(', ');
  return text || null;
}

/**
 * Reads a MIME message (RFC 5322) with mailparser's streaming MailParser: headers, the text and
 * HTML bodies (mailparser's own HTML-to-text and text-to-HTML conversions are off: the reader
 * converts HTML with our rules), and the attachments. Attached messages stay attachments
 * (`ignoreEmbedded`), so the reader descends into them itself, to a bounded depth.
 * `onAttachment` is called as each attachment is met, before its content is read, so a message
 * of thousands of attachments fails at the limit rather than after buffering them all.
 */
export async function readMime(buf: Buffer, onAttachment: () => void): Promise<MailMessage> {
  const parser = new MailParser({
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipImageLinks: true,
    ignoreEmbedded: true,
    checksumAlgo: false,
  });
  let headers: Map<string, HeaderValue> = new Map();
  parser.on('headers', (h: Map<string, HeaderValue>) => (headers = h));
  const message: MailMessage = { subject: null, from: null, to: null, cc: null, date: null, html: null, text: null, attachments: [] };
  // fed in slices, so the splitter waits while an attachment is handled: the attachment count
  // fails a message of thousands of parts before the splitter has gone through them all
  Readable.from(slices(buf)).pipe(parser);
  try {
    for await (const part of parser) {
      const data = part as AttachmentStream | MessageText;
      if (data.type === 'text') {
        message.html = typeof data.html === 'string' ? data.html : null;
        message.text = typeof data.text === 'string' ? data.text : null;
        continue;
      }
      onAttachment();
      const content = await buffer(data.content);
      data.release?.();
      const contentType = String(data.contentType ?? '').toLowerCase() || null;
      message.attachments.push({
        name: data.filename ?? null,
        contentType,
        inline: Boolean(data.related) && Boolean(contentType?.startsWith('image/')),
        message: contentType === 'message/rfc822' ? 'eml' : null,
        content: () => content,
      });
    }
  } catch (e) {
    parser.destroy();
    if (e instanceof IngestError) throw e;
    // mailparser's splitter bounds a message's MIME parts (1,000, nested or not) and each part's header size
    if ((e as { code?: string }).code === 'EMAXLEN')
      throw new LimitError(`the message is beyond the mail reader's MIME limits (${(e as Error).message.toLowerCase()})`);
    throw new IngestError(`not a readable e-mail message (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
  }
  const subject = headers.get('subject');
  const date = headers.get('date');
  message.subject = typeof subject === 'string' && subject.trim() ? subject.trim() : null;
  message.from = addresses(headers.get('from'));
  message.to = addresses(headers.get('to'));
  message.cc = addresses(headers.get('cc'));
  message.date = date instanceof Date && !Number.isNaN(date.getTime()) ? date : null;
  return message;
}
