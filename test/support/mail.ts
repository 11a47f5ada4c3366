/**
 * MIME messages built at run time for the mail reader's limit tests (a message of thousands of
 * attachments, messages attached within messages): RFC 5322 headers, multipart/mixed with base64
 * parts, as any mail program writes them. No test framework imports here.
 */

export interface MimeAttachment {
  name?: string;
  type: string;
  content: Buffer | string;
}

/** Lines of base64, 76 characters each (RFC 2045). */
const base64Lines = (data: Buffer | string) =>
  (
    Buffer.from(data)
      .toString('base64')
      .match(/.{1,76}/g) ?? []
  ).join('\r\n');

/** A message with a plain-text body and its attachments (a message/rfc822 one is attached as it is, not encoded). */
export function mimeMessage(
  subject: string,
  body: string,
  attachments: MimeAttachment[] = [],
  boundary = `b-${subject.length}-${attachments.length}`,
): string {
  const head = [
    'From: Test Sender <sender@example.com>',
    'To: Test Recipient <recipient@example.com>',
    `Subject: ${subject}`,
    'Date: Tue, 03 Mar 2026 10:15:00 +0000',
    'MIME-Version: 1.0',
  ];
  if (!attachments.length) return [...head, 'Content-Type: text/plain; charset=utf-8', '', body, ''].join('\r\n');
  const parts = [`--${boundary}`, 'Content-Type: text/plain; charset=utf-8', '', body];
  for (const a of attachments) {
    parts.push(`--${boundary}`, `Content-Type: ${a.type}`);
    if (a.name) parts.push(`Content-Disposition: attachment; filename="${a.name}"`);
    if (a.type === 'message/rfc822') parts.push('', String(a.content));
    else parts.push('Content-Transfer-Encoding: base64', '', base64Lines(a.content));
  }
  parts.push(`--${boundary}--`, '');
  return [...head, `Content-Type: multipart/mixed; boundary="${boundary}"`, '', ...parts].join('\r\n');
}

/** A message carrying `count` small text attachments. */
export function manyAttachments(count: number): string {
  const attachments = Array.from({ length: count }, (_, i) => ({ name: `note-${i}.txt`, type: 'text/plain', content: `Note ${i}.` }));
  return mimeMessage('Many attachments', 'Every note is attached.', attachments);
}

/** A message holding a message holding a message …, `depth` messages in all; the innermost says `innermost`. */
export function nestedMessages(depth: number, innermost = 'The innermost message.'): string {
  let message = mimeMessage(`Level ${depth}`, innermost);
  for (let level = depth - 1; level >= 1; level--)
    message = mimeMessage(
      `Level ${level}`,
      `Forwarding level ${level + 1}.`,
      [{ type: 'message/rfc822', content: message }],
      `level-${level}`,
    );
  return message;
}

/** A message whose body is `depth` multipart/mixed parts each inside the last, a line of text at the bottom. */
export function nestedMultiparts(depth: number): string {
  const lines = ['From: Test Sender <sender@example.com>', 'Subject: Nested parts', 'MIME-Version: 1.0'];
  for (let i = 0; i < depth; i++) lines.push(`Content-Type: multipart/mixed; boundary="n${i}"`, '', `--n${i}`);
  lines.push('Content-Type: text/plain', '', 'The innermost part.');
  for (let i = depth - 1; i >= 0; i--) lines.push(`--n${i}--`);
  return lines.join('\r\n');
}
