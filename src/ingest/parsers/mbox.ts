/**
 * The messages of an MBOX file (RFC 4155), one at a time. A message starts at a `From ` line
 * (the postmark) at the start of the file or after an empty line, so a body line that begins
 * with "From " but was left unescaped does not split its message; the postmark itself is not
 * part of the message. Body lines escaped as `>From ` (mboxo) or `>>From ` (mboxrd) lose one `>`.
 * A file that does not start with a postmark is one message.
 *
 * No library does this here: the registry's MBOX splitters are AGPL-licensed (mbox-reader) or
 * split at every `From ` line and keep the escapes (node-mbox).
 */
export function* mboxMessages(buf: Buffer): Generator<Buffer> {
  // latin1 maps every byte to one character and back, so each message's bytes are kept as they are
  const text = buf.toString('latin1');
  if (!text.startsWith('From ')) {
    yield buf;
    return;
  }
  let lines: string[] = [];
  let from = 0;
  let previousEmpty = true;
  const flush = function* (): Generator<Buffer> {
    // the empty line before the next postmark separates messages: it is not the message's
    while (lines.length && /^\r?$/.test(lines[lines.length - 1])) lines.pop();
    if (lines.length) yield Buffer.from(lines.join('\n'), 'latin1');
    lines = [];
  };
  while (from <= text.length) {
    const end = text.indexOf('\n', from);
    const line = text.slice(from, end < 0 ? text.length : end);
    if (previousEmpty && line.startsWith('From ')) yield* flush();
    else lines.push(/^>+From /.test(line) ? line.slice(1) : line);
    previousEmpty = /^\r?$/.test(line);
    if (end < 0) break;
    from = end + 1;
  }
  yield* flush();
}
