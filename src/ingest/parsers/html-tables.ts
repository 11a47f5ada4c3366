import type { HtmlNode } from './html-furniture';

/** How html.ts reads tables: data tables row by row, layout tables as blocks. */

/** The rows of a table (its own, not a nested table's), through thead/tbody/tfoot. */
export function tableRows(node: HtmlNode): HtmlNode[] {
  return (node.children ?? []).flatMap((c) =>
    c.name === 'tr' ? [c] : c.name === 'thead' || c.name === 'tbody' || c.name === 'tfoot' ? tableRows(c) : [],
  );
}

/** Elements that make a table a page layout rather than data: its cells hold headings or tables. */
const LAYOUT_INSIDE = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table']);
/** Remembered per node: nested tables would otherwise read their subtrees once per level. */
const layoutInside = new WeakMap<HtmlNode, boolean>();
function holdsLayout(node: HtmlNode): boolean {
  let known = layoutInside.get(node);
  if (known === undefined) {
    known = (node.children ?? []).some((c) => (c.name !== undefined && LAYOUT_INSIDE.has(c.name)) || holdsLayout(c));
    layoutInside.set(node, known);
  }
  return known;
}

/**
 * A table laid out as a page (headings or tables inside its cells, or one column only) rather
 * than a table of data: its cells are read as blocks, one after another.
 */
export function isLayoutTable(rows: HtmlNode[]): boolean {
  const cells = rows.map((tr) => (tr.children ?? []).filter((c) => c.name === 'td' || c.name === 'th'));
  return cells.every((row) => row.length <= 1) || cells.some((row) => row.some(holdsLayout));
}

/** A cell's text on one line: a wrapped or multi-paragraph cell (or a nested table) is joined with spaces. */
export const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ').trim();
