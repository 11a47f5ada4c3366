import { format as formatNumber, isDateFormat } from 'numfmt';
import type { OfficeContentNode, OfficeParserAST } from 'officeparser';
import type { ParseLimits } from '../limits';
import { attr, countInParts, readParts, xmlElements } from './office-parts';
import { checkSheetCount, SheetData, tooManyCells } from './sheets';

/**
 * ECMA-376's built-in number formats (Part 1, 18.8.30), which a workbook uses by id without
 * writing their codes. Id 14, the locale's short date, is read as an ISO date: unambiguous in
 * every locale.
 */
const BUILTIN_FORMATS: Record<number, string> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'yyyy-mm-dd',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'yyyy-mm-dd h:mm',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)',
  40: '#,##0.00;[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
};

/** Days between the 1900 and the 1904 date systems' day zero. */
const DATE_1904_OFFSET = 1462;

/** What an XLSX workbook says beyond officeparser's AST: its sheets' order and each cell style's number format. */
export interface WorkbookInfo {
  /** Sheet names in the workbook's order (its tabs). */
  sheetOrder: string[];
  /** Number format code by cell style index (`s` of a cell). */
  formats: string[];
  date1904: boolean;
}

/** A cell with a value in a worksheet's XML: its value (`<v>`) or inline string (`<is>`), with or without a prefix. */
const CELL_VALUE = /<(?:\w+:)?(?:v|is)>/g;

/**
 * Reads an XLSX's workbook part (sheet order, date system) and styles part (number formats), and
 * fails a workbook over SPREADSHEET_MAX_SHEETS, or whose worksheets hold more than
 * SPREADSHEET_MAX_CELLS values, before officeparser reads a sheet (its tree costs some 350 bytes a
 * cell: a workbook over the limit would otherwise meet the parser's heap limit first).
 */
export async function readWorkbook(buf: Buffer, limits: Pick<ParseLimits, 'maxSheets' | 'maxCells'>): Promise<WorkbookInfo> {
  const parts = await readParts(buf, (n) => n === 'xl/workbook.xml' || n === 'xl/styles.xml', 'XLSX');
  const sheets = xmlElements(parts.get('xl/workbook.xml'), 'sheet');
  checkSheetCount(sheets.length, limits);
  const cells = await countInParts(buf, (n) => /^xl\/worksheets\/[^/]+\.xml$/.test(n), CELL_VALUE, 8, limits.maxCells + 1);
  if (cells > limits.maxCells) throw tooManyCells(limits);
  const pr = xmlElements(parts.get('xl/workbook.xml'), 'workbookPr')[0];
  const date1904 = pr ? ['1', 'true'].includes(attr(pr, 'date1904') ?? '') : false;
  const styles = parts.get('xl/styles.xml');
  const codes = new Map<number, string>();
  for (const f of xmlElements(styles, 'numFmt')) codes.set(Number(attr(f, 'numFmtId')), attr(f, 'formatCode') ?? 'General');
  const cellXfs = xmlElements(styles, 'cellXfs')[0];
  const formats = (cellXfs ? cellXfs.children : [])
    .filter((x) => 'name' in x && x.name.replace(/^.*:/, '') === 'xf')
    .map((xf) => {
      const id = Number(attr(xf as Parameters<typeof attr>[0], 'numFmtId') ?? 0);
      return codes.get(id) ?? BUILTIN_FORMATS[id] ?? 'General';
    });
  return { sheetOrder: sheets.map((s) => attr(s, 'name') ?? ''), formats, date1904 };
}

/** A cell's attributes from its XML (officeparser's raw content of the cell: `<c r="D2" s="1" t="n">`). */
function cellAttributes(raw: string | undefined): { style: number; type: string } {
  const open = raw?.slice(0, raw.indexOf('>') + 1) ?? '';
  return { style: Number(/\ss="(\d+)"/.exec(open)?.[1] ?? 0), type: /\st="(\w+)"/.exec(open)?.[1] ?? 'n' };
}

/**
 * An XLSX cell as the spreadsheet displays it: officeparser gives a number cell's stored value (a
 * date as its serial number, 45730; a percentage as 0.7; a formula's cached result), which is
 * formatted with the cell's number format (numfmt); booleans read TRUE/FALSE.
 */
function displayed(cell: OfficeContentNode, info: WorkbookInfo): string {
  const text = cell.text ?? '';
  const { style, type } = cellAttributes(cell.rawContent);
  if (type === 'b') return text === '1' ? 'TRUE' : text === '0' ? 'FALSE' : text;
  if (type !== 'n' || text.trim() === '' || !Number.isFinite(Number(text))) return text;
  const code = info.formats[style] ?? 'General';
  let value = Number(text);
  if (info.date1904 && isDateFormat(code)) value += DATE_1904_OFFSET;
  try {
    return formatNumber(code, value, { locale: 'en', nbsp: false });
  } catch {
    return text;
  }
}

/** A cell's text (officeparser puts it on the cell, or only on its text runs). */
export function nodeText(node: OfficeContentNode): string {
  if (node.type === 'text' || !node.children?.length) return node.text ?? '';
  return node.children.map(nodeText).join('');
}

/** A sheet node's rows as SheetData (cells by their row and column). */
function sheetRows(sheet: OfficeContentNode, cell: (c: OfficeContentNode) => string): SheetData['rows'] {
  const rows: SheetData['rows'] = [];
  for (const row of sheet.children ?? []) {
    if (row.type !== 'row') continue;
    for (const c of row.children ?? []) {
      if (c.type !== 'cell') continue;
      const meta = c.metadata as { row?: number; col?: number } | undefined;
      const r = meta?.row ?? rows.length;
      (rows[r] ??= [])[meta?.col ?? rows[r].length] = cell(c);
    }
  }
  return rows;
}

/** The sheets of an XLSX or ODS in the workbook's order, cells as displayed. */
export function spreadsheetSheets(ast: OfficeParserAST, info: WorkbookInfo | null): SheetData[] {
  const sheets = ast.content
    .filter((n) => n.type === 'sheet')
    .map((n) => ({
      name: (n.metadata as { sheetName?: string } | undefined)?.sheetName ?? '',
      rows: sheetRows(n, info ? (c) => displayed(c, info) : nodeText),
    }));
  if (!info) return sheets;
  // officeparser lists an XLSX's sheets in the order of their parts; the workbook's order is the tabs'
  const order = new Map(info.sheetOrder.map((name, i) => [name, i]));
  return sheets.sort((a, b) => (order.get(a.name) ?? Infinity) - (order.get(b.name) ?? Infinity));
}
