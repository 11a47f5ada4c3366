import MsgReader, { type FieldsData } from '@kenjiuno/msgreader';
import { IngestError } from '../types';
import type { MailAttachment, MailMessage } from './mail-message';

/** A MAPI string list as one line: recipients' names and addresses ("Ada <ada@example.com>"). */
function recipients(fields: FieldsData, type: 'to' | 'cc'): string | null {
  const list = (fields.recipients ?? [])
    .filter((r) => (r.recipType ?? 'to') === type)
    .map((r) => {
      const address = r.smtpAddress || (r.email && /@/.test(r.email) ? r.email : '');
      const name = r.name && r.name !== address ? r.name : '';
      return name && address ? `${name} <${address}>` : name || address;
    })
    .filter(Boolean);
  return list.length ? list.join(', ') : null;
}

/** The first date among MAPI's submit, delivery and creation times that parses. */
function dateOf(fields: FieldsData): Date | null {
  for (const value of [fields.clientSubmitTime, fields.messageDeliveryTime, fields.creationTime]) {
    const date = value ? new Date(value) : null;
    if (date && !Number.isNaN(date.getTime())) return date;
  }
  return null;
}

/** Windows code page numbers as the WHATWG encoding labels TextDecoder knows. */
function decoderFor(codepage: number | undefined): { decode(bytes: Uint8Array): string } {
  const label = codepage === 65001 || !codepage ? 'utf-8' : codepage === 20127 ? 'us-ascii' : `windows-${codepage}`;
  try {
    return new TextDecoder(label);
  } catch {
    return new TextDecoder('utf-8');
  }
}

/**
 * Reads an Outlook message (MS-OXMSG) with `@kenjiuno/msgreader`: subject, sender, To and Cc
 * recipients, date, the plain-text body and the HTML body (PR_HTML, in the message's internet
 * code page), and its attachments; an attached Outlook item is written out as a message of its
 * own (msgreader's burner) only when it is read. `onAttachment` is called for each before any is read.
 */
export function readMsg(buf: Buffer, onAttachment: () => void): MailMessage {
  let reader: MsgReader;
  let fields: FieldsData;
  try {
    reader = new MsgReader(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer);
    fields = reader.getFileData();
  } catch (e) {
    throw new IngestError(`not a readable Outlook message (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
  }
  if (fields.error) throw new IngestError(`not a readable Outlook message (${fields.error})`);
  const html = fields.bodyHtml ?? (fields.html ? decoderFor(fields.internetCodepage).decode(fields.html) : null);
  const attachments: MailAttachment[] = [];
  for (const a of fields.attachments ?? []) {
    onAttachment();
    const embedded = a.innerMsgContent === true;
    attachments.push({
      name: embedded ? (a.name ?? null) : (a.fileName ?? a.fileNameShort ?? a.name ?? null),
      contentType: a.attachMimeTag?.toLowerCase() ?? null,
      inline: Boolean(a.pidContentId) && Boolean(a.attachMimeTag?.toLowerCase().startsWith('image/')) && Boolean(html),
      message: embedded ? 'msg' : null,
      content: () => {
        try {
          return Buffer.from(reader.getAttachment(a).content);
        } catch (e) {
          throw new IngestError(`the attachment could not be extracted (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
        }
      },
    });
  }
  // an Exchange sender's PR_SENDER_EMAIL_ADDRESS is an X.500 name, not an address
  const sender = fields.senderSmtpAddress || (fields.senderEmail?.includes('@') ? fields.senderEmail : '');
  const from =
    fields.senderName && sender && fields.senderName !== sender ? `${fields.senderName} <${sender}>` : fields.senderName || sender;
  return {
    subject: fields.subject?.trim() || null,
    from: from || null,
    to: recipients(fields, 'to'),
    cc: recipients(fields, 'cc'),
    date: dateOf(fields),
    html: html || null,
    text: fields.body ?? null,
    attachments,
  };
}
