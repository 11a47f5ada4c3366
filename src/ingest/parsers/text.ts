import { pagesOf } from '../paginate';
import { IngestError, PageSource } from '../types';

/**
 * Decodes a text file: a UTF-8 or UTF-16 byte-order mark wins; otherwise strict UTF-8, falling back
 * to Windows-1252 (the usual encoding of legacy text files) when the bytes are not valid UTF-8.
 */
// eslint-disable-next-line no-control-regex -- control characters other than tab, newline, carriage return and form feed
const CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f]/;

export function decodeText(buf: Buffer): string {
  let text: string;
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) text = new TextDecoder('utf-8').decode(buf.subarray(3));
  else if (buf[0] === 0xff && buf[1] === 0xfe) text = new TextDecoder('utf-16le').decode(buf.subarray(2));
  else if (buf[0] === 0xfe && buf[1] === 0xff) text = new TextDecoder('utf-16be').decode(buf.subarray(2));
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
    } catch {
      text = new TextDecoder('windows-1252').decode(buf);
    }
  }
  // control characters other than tab, newline, carriage return and form feed mean binary data
  const sample = text.slice(0, 65536);
  // eslint-disable-next-line no-control-regex -- counts control characters on purpose to detect binary content
  const controls = sample.match(/[\u0000-\u0008\u000e-\u001f]/g)?.length ?? 0;
  if (controls > 0 && controls / Math.max(1, sample.length) > 0.001) {
    throw new IngestError('the file is not readable text (binary content)');
  }
  // no copy when there are none
  return CONTROL.test(text) ? text.replace(new RegExp(CONTROL.source, 'g'), '') : text;
}

/** Plain text: decoded, then paginated by the form-feed / 3,000-character rule. */
export function parseText(buf: Buffer): PageSource {
  const text = decodeText(buf);
  return () => pagesOf(text);
}
