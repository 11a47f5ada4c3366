/**
 * A printed table of contents ("1.2 What is Debian GNU/Linux? . . . . . 1"): nobody wants it
 * cited. It names the section that answers without holding the answer, and its many headings match
 * many questions, so it can outrank the page it points to. Such a page keeps its place (the pages
 * after it keep their numbers) but is not indexed: its text becomes empty.
 *
 * A contents line ends in dot leaders and a page number. A page is a contents page when at least
 * CONTENTS_SHARE of its non-empty lines, and at least MIN_LINES of them, are contents lines (the
 * rest are chapter lines without leaders and entries wrapped onto two lines). Only the end of a
 * line is examined (TAIL_CHARS), so a line of any length costs the same.
 */
const CONTENTS_SHARE = 0.4;
const MIN_LINES = 5;
const TAIL_CHARS = 80;
/** Dot leaders (". . . ." or "....") then a page number, arabic or lower-case roman. */
const LEADER_END = /(?:\s?\.){4}\s*(?:\d{1,5}|[ivxlc]{1,7})$/;

/** Whether a line is a table-of-contents entry: it ends in dot leaders and a page number. */
export function isContentsLine(line: string): boolean {
  return LEADER_END.test(line.slice(-TAIL_CHARS).trimEnd());
}

/** Whether a page's text is a table of contents (see above). */
export function isContentsPage(text: string): boolean {
  let lines = 0;
  let entries = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    lines++;
    if (isContentsLine(line)) entries++;
  }
  return entries >= MIN_LINES && entries >= lines * CONTENTS_SHARE;
}

/**
 * A back-of-book index set without dot leaders, as LaTeX (makeindex), Sphinx and DocBook with FOP
 * print it: `grid.edit, 1091, 1118,` / `pg_dump, 2345–2350`, an entry's pages wrapped onto lines of
 * their own, and group headings (`G`, `∗ algebra`). Its short lines each name a term, so for a
 * question about that term it outranks the page that explains it; like a contents page it keeps its
 * place and is not indexed. (An index with leaders, texinfo's, is a contents page above.)
 *
 * A page is an index page when at least INDEX_ENTRIES of its lines are entries (a term, then a
 * list of page numbers) and entries and page-number lines make at least INDEX_SHARE of its
 * non-empty lines. Only the end of a line is examined (TAIL_CHARS).
 */
const INDEX_ENTRIES = 8;
const INDEX_SHARE = 0.5;
/** One page reference: arabic, a range of them, or lower-case roman. */
const PAGE_REF = String.raw`(?:\d{1,5}(?:[–-]\d{1,5})?|[ivxlc]{1,7})`;
/** A letter, then a comma and page references to the end of the line (a trailing comma: the list goes on). */
const INDEX_ENTRY = new RegExp(String.raw`\p{L}[^,]*,\s*${PAGE_REF}(?:,\s*${PAGE_REF})*,?$`, 'u');
/** A line of page references alone: an entry's list wrapped. */
const INDEX_PAGES = new RegExp(String.raw`^\d{1,5}(?:[–-]\d{1,5})?(?:,\s*${PAGE_REF})*,?$`);

/** Whether a page's text is a back-of-book index without leaders (see above). */
export function isIndexPage(text: string): boolean {
  let lines = 0;
  let entries = 0;
  let pagesOnly = 0;
  for (const raw of text.split('\n')) {
    const line = raw.slice(-TAIL_CHARS).trim();
    if (!line) continue;
    lines++;
    if (INDEX_PAGES.test(line)) pagesOnly++;
    else if (INDEX_ENTRY.test(line)) entries++;
  }
  return entries >= INDEX_ENTRIES && entries + pagesOnly >= lines * INDEX_SHARE;
}

/** Whether a PDF page is not to be indexed: a table of contents or a back-of-book index. */
export function isFinderPage(text: string): boolean {
  return isContentsPage(text) || isIndexPage(text);
}

/** A numbered entry of a table of contents: `2.4. Sidebar`, `    9.1. OpenPGP Configuration`. */
const CONTENTS_ENTRY = /^\s*(?:\d{1,3}\.)+\d{0,3}\.?\s+\S/;
/** A block is a table of contents when it has this many lines and most of them are entries (each at most ENTRY_CHARS long). */
const ENTRY_CHARS = 100;
const BLOCK_CONTENTS_LINES = 5;
const BLOCK_CONTENTS_SHARE = 0.8;

/**
 * A texinfo menu entry as Info files and `makeinfo --plaintext` print them: `* Overview::`, with a
 * description or not; `* sed: (sed).  Stream EDitor.`; and an index entry, `* -e, example:
 * Overview.  (line 46)`, whose `(line N)` may wrap onto a line of its own. These are unmistakable
 * (MENU_ENTRY); `* term: Node name.` (MENU_ENTRY_LIKE) counts only beside them. A long description
 * wraps onto lines indented far (MENU_CONTINUATION); a menu may group its entries under labels
 * (MENU_LABEL).
 */
const MENU_ENTRY = /^\* (?:[^:\n]{1,80}::|[^:\n]{1,80}: +\([^)\s]{1,40}\)|.{1,160}\(line +\d{1,6}\) *$)/;
const MENU_ENTRY_LIKE = /^\* .{1,100}?: +[^:\n]{1,100}\. *$/;
const MENU_CONTINUATION = /^ {16,}\S/;
const MENU_LABEL = /^[^*\s].{0,60}:$/;
/** An Info node's header line, naming the nodes around it: `File: sed.info,  Node: Overview,  Next: …,  Up: …`. */
const INFO_NODE_LINE = /^File: [^\s,]{1,100}, +Node: /;
/**
 * What is not the manual's text in a texinfo manual's text forms: node header lines, the `* Menu:`
 * line, an index's `[index]` tag, the directory entry's and the tag table's lines.
 */
const INFO_LINE =
  /^(?:\* Menu:|\[index\]|INFO-DIR-SECTION .{1,100}|START-INFO-DIR-ENTRY|END-INFO-DIR-ENTRY|Tag Table:|End Tag Table|(?:Node|Ref): .{1,200}\d)\s*$/;
/** Whether a block holds a line that can be a menu entry or one of INFO_LINE's (the rest are not read line by line). */
const MAY_HOLD_INFO = /(?:^|\n)(?:File: |\* |\[index\]|INFO-DIR-SECTION |START-INFO-DIR-ENTRY|END-INFO-DIR-ENTRY|Tag Table:)/;
/** Menu and furniture lines are short: a longer line is text, and is not examined (so no line costs more than this). */
const MENU_LINE_CHARS = 300;
const isInfoFurniture = (line: string): boolean => line.length <= MENU_LINE_CHARS && (INFO_NODE_LINE.test(line) || INFO_LINE.test(line));
const isMenuLine = (l: string): boolean =>
  l.length <= MENU_LINE_CHARS && (MENU_ENTRY.test(l) || MENU_ENTRY_LIKE.test(l) || MENU_CONTINUATION.test(l) || MENU_LABEL.test(l));

/**
 * Empties the tables of contents a text manual prints at its start and at each chapter's (blocks
 * of numbered titles with no text), and a texinfo manual's menus, indexes and node header lines:
 * indexed, they match every question about the sections they name and are cited instead of them.
 * The blank lines stay, so nothing else moves.
 */
export function dropContentsBlocks(text: string): string {
  let dropped = false;
  const blocks = text.split(/(\n[ \t]*\n)/);
  for (let i = 0; i < blocks.length; i += 2) {
    if (MAY_HOLD_INFO.test(blocks[i])) {
      const all = blocks[i].split('\n');
      const kept = all.filter((l) => !isInfoFurniture(l));
      // a block of nothing but menu entries (a menu, or an index's entries) goes whole
      const menu = kept.some((l) => l.length <= MENU_LINE_CHARS && MENU_ENTRY.test(l)) && kept.every(isMenuLine);
      if (menu || kept.length < all.length) {
        blocks[i] = menu ? '' : kept.join('\n');
        dropped = true;
        continue;
      }
    }
    const lines = blocks[i].split('\n').filter((l) => l.trim());
    if (lines.length < BLOCK_CONTENTS_LINES) continue;
    const entries = lines.filter((l) => l.length <= ENTRY_CHARS && CONTENTS_ENTRY.test(l) && !/[.,;:]$/.test(l.trim())).length;
    if (entries >= lines.length * BLOCK_CONTENTS_SHARE) {
      blocks[i] = '';
      dropped = true;
    }
  }
  return dropped ? blocks.join('') : text;
}
