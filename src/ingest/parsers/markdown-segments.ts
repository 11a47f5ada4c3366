import MarkdownIt from 'markdown-it';

/**
 * Cuts Markdown into pieces of whole top-level blocks, so a large file is parsed a piece at a
 * time and the parser's token tree never holds more than one piece (a 3.7 MB file of 100,000
 * headings made markdown-it hold 270 MB of tokens at once).
 *
 * Where the blocks end is markdown-it's own judgement: a window of the file goes through its block
 * rules only (no inline parsing, so this pass is cheap), every top-level block but the last is
 * taken (the last may go on past the window), and the next window starts where that last block
 * starts, at the top level with nothing open, just as in a parse of the whole file. A block longer
 * than the window (a huge list or code fence) doubles the window until it fits, so the pass stays
 * linear in the file.
 */
const blockParser = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
blockParser.core.ruler.disable(['inline', 'text_join']);

/** The index just after the line that contains `at` (or the end). */
function lineEndAfter(text: string, at: number): number {
  if (at >= text.length) return text.length;
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl + 1;
}

/** The offset in `text` of line `line` (0-based). */
function lineOffset(text: string, line: number): number {
  let at = 0;
  for (let i = 0; i < line && at < text.length; i++) at = lineEndAfter(text, at);
  return at;
}

/** Pieces of `text` (line endings already `\n`), each whole top-level blocks of `windowChars` or more. */
export function* markdownPieces(text: string, windowChars: number): Generator<string> {
  let start = 0;
  let window = windowChars;
  while (start < text.length) {
    const cut = lineEndAfter(text, start + window);
    if (cut >= text.length) {
      yield text.slice(start);
      return;
    }
    const piece = text.slice(start, cut);
    const tokens = blockParser.parse(piece, {});
    let lastStart = -1;
    for (let i = tokens.length - 1; i >= 0; i--) {
      const t = tokens[i];
      if (t.level === 0 && t.map && t.nesting >= 0) {
        lastStart = t.map[0];
        break;
      }
    }
    if (lastStart < 0) {
      // nothing but blank lines and link definitions
      yield piece;
      start = cut;
    } else if (lastStart === 0) window *= 2;
    else {
      const next = lineOffset(piece, lastStart);
      yield piece.slice(0, next);
      start += next;
      window = windowChars;
    }
  }
}

/** A line that may define a link reference (`[label]: url`): those apply to the whole file. */
const REFERENCE_DEFINITION = /^ {0,3}\[(?:[^\]\\\n]|\\.){1,999}\]:/;
/** A definition's destination and title may follow on the next two lines. */
const DEFINITION_LINES = 3;

/** The lines (with the two after each) that may define link references, for parsing pieces apart. */
export function referenceDefinitions(text: string): string {
  const out: string[] = [];
  for (let at = 0; at < text.length;) {
    const end = lineEndAfter(text, at);
    if (text.charCodeAt(at) === 91 /* [ */ || text.startsWith(' [', at) || text.startsWith('  [', at) || text.startsWith('   [', at)) {
      if (REFERENCE_DEFINITION.test(text.slice(at, Math.min(end, at + 1024)))) {
        let stop = end;
        for (let i = 1; i < DEFINITION_LINES; i++) stop = lineEndAfter(text, stop);
        out.push(text.slice(at, stop));
      }
    }
    at = end;
  }
  return out.join('\n\n');
}
