import { parse as parseCsv } from 'csv-parse/sync';
import { LimitError, ParseLimits, TextBudget } from '../limits';
import { headingMark, stripMarks, withSections } from '../sections';
import { IngestError, PageSource, ParsedPage } from '../types';
import { decodeText } from './text';

/**
 * One sheet's cells as they display, row by row (`rows[r][c]`, 0-based; a row or cell may be
 * missing or empty). `name` is the sheet's tab name; a CSV or TSV file has none.
 */
export interface SheetData {
  name: string | null;
  rows: Array<Array<string | undefined> | undefined>;
}

/** Rows looked at for the header row (a title or a note may stand above it). */
const HEADER_SEARCH_ROWS = 10;

/** A cell that displays a number, an amount or a percentage (`126500`, `-1,234.50`, `€2,340.50`, `70.0%`, `(300)`). */
const NUMERIC = /^[(+\-\u2212]?\s*[$€£¥]?\s*[\d][\d.,'\s\u00a0\u202f]*\s*[%$€£¥]?\)?$/;

/** A cell's text on one line (a cell with line breaks would otherwise split its row's paragraph). */
const cellText = (text: string | undefined): string => (text ? stripMarks(text).replace(/\s+/g, ' ').trim() : '');

/**
 * The header row: the first of the sheet's first non-empty rows with at least two cells (one in a
 * one-column sheet), most of them text rather than numbers, that has a row below it. -1 when
 * there is none (a sheet of numbers only).
 */
function headerRow(rows: string[][], columns: number): number {
  const limit = Math.min(rows.length - 1, HEADER_SEARCH_ROWS);
  for (let r = 0; r < limit; r++) {
    const filled = rows[r].filter(Boolean);
    if (filled.length < Math.min(2, columns)) continue;
    const text = filled.filter((c) => !NUMERIC.test(c)).length;
    if (text * 3 >= filled.length * 2) return r;
  }
  return -1;
}

/** The cells of a sheet, one line each, with its empty rows and columns dropped. */
function compact(sheet: SheetData): { rows: string[][]; columns: number } {
  const used = new Set<number>();
  const rows: Array<Array<string | undefined>> = [];
  for (const row of sheet.rows) {
    if (!row) continue;
    const cells = row.map(cellText);
    let any = false;
    cells.forEach((c, i) => {
      if (c) {
        used.add(i);
        any = true;
      }
    });
    if (any) rows.push(cells);
  }
  const keep = [...used].sort((a, b) => a - b);
  return { rows: rows.map((row) => keep.map((i) => row[i] ?? '')), columns: keep.length };
}

/**
 * A sheet's page: its name as a heading, then one paragraph per row, each cell read with its
 * column's header (`Item: Cloud hosting | Amount EUR: 126500`) so a value is found with what it
 * is. Rows above the header row (a title, a note) and cells of a column without a header are read
 * as they are; empty rows and columns are skipped. `budget` counts the text as it is written.
 */
function sheetText(sheet: SheetData, budget: TextBudget): string {
  const { rows, columns } = compact(sheet);
  const out: string[] = [];
  const add = (paragraph: string) => {
    budget.add(paragraph.length + 2);
    out.push(paragraph);
  };
  if (sheet.name !== null) add(headingMark(1) + (cellText(sheet.name) || 'Sheet'));
  const h = headerRow(rows, columns);
  const headers = h >= 0 ? rows[h] : [];
  rows.forEach((row, r) => {
    if (r === h) return;
    const cells: string[] = [];
    row.forEach((value, c) => {
      if (!value) return;
      cells.push(r > h && headers[c] ? `${headers[c]}: ${value}` : value);
    });
    add(cells.join(' | '));
  });
  // a sheet with a header and nothing under it still says what it holds
  if (h >= 0 && rows.length === h + 1) add(headers.filter(Boolean).join(' | '));
  return out.join('\n\n');
}

/** Fails a spreadsheet over SPREADSHEET_MAX_SHEETS. */
export function checkSheetCount(count: number, limits: Pick<ParseLimits, 'maxSheets'>): void {
  if (count > limits.maxSheets)
    throw new LimitError(`the spreadsheet has ${count} sheets, more than the limit of ${limits.maxSheets} (SPREADSHEET_MAX_SHEETS)`);
}

/** The error for a spreadsheet over SPREADSHEET_MAX_CELLS. */
export const tooManyCells = (limits: Pick<ParseLimits, 'maxCells'>): LimitError =>
  new LimitError(`the spreadsheet has more than ${limits.maxCells} non-empty cells (SPREADSHEET_MAX_CELLS)`);

/**
 * The pages of a spreadsheet: one per sheet, numbered from 1 in sheet order (a citation's "page"
 * is its sheet), each opening with the sheet's name as a heading (see sheetText). Checks the
 * sheet and cell limits first.
 */
export function sheetPages(sheets: SheetData[], limits: ParseLimits): PageSource {
  checkSheetCount(sheets.length, limits);
  let cells = 0;
  for (const sheet of sheets)
    for (const row of sheet.rows) if (row) for (const c of row) if (c?.trim() && ++cells > limits.maxCells) throw tooManyCells(limits);
  return function* (): Generator<ParsedPage> {
    const budget = new TextBudget(limits.maxExpandedBytes);
    for (const [i, sheet] of sheets.entries()) yield withSections({ pageNumber: i + 1, text: sheetText(sheet, budget) });
  };
}

/** The delimiter of a CSV file: a semicolon when its first line has more of them than commas (a European export). */
function csvDelimiter(text: string): string {
  const first = text.slice(0, text.search(/\r?\n|$/));
  const count = (ch: string) => first.split(ch).length - 1;
  return count(';') > count(',') ? ';' : ',';
}

/**
 * Reads a CSV or TSV file (csv-parse) as one sheet without a name: one page, a paragraph per row
 * with the header row's names (see sheetPages). Its encoding is decoded as a text file's is.
 */
export function parseDelimited(kind: 'csv' | 'tsv', buf: Buffer, limits: ParseLimits): PageSource {
  const text = decodeText(buf);
  let cells = 0;
  let rows: string[][];
  try {
    rows = parseCsv(text, {
      delimiter: kind === 'tsv' ? '\t' : csvDelimiter(text),
      // a TSV has no quoting: a quote is a character of its cell
      quote: kind === 'tsv' ? false : '"',
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      on_record: (record: string[]) => {
        for (const c of record) if (c.trim() && ++cells > limits.maxCells) throw tooManyCells(limits);
        return record;
      },
    });
  } catch (e) {
    if (e instanceof LimitError) throw e;
    throw new IngestError(`not a valid ${kind.toUpperCase()} file (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
  }
  return sheetPages([{ name: null, rows }], limits);
}
