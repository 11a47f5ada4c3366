import { OfficeParser, OfficeWarningType, type OfficeContentNode, type OfficeParserAST, type OfficeParserConfig } from 'officeparser';
import { LimitError, megabytes, ParseLimits } from '../limits';
import { sectionedPages } from '../sections';
import { IngestError, PageSource } from '../types';
import { odfHeaderRows, readParts } from './office-parts';
import { documentText } from './office-text';
import { checkSheetCount, sheetPages, tooManyCells } from './sheets';
import { readDeckOrder, slidePages } from './slides';
import { readWorkbook, spreadsheetSheets, WorkbookInfo } from './spreadsheet';
import { checkZip } from './zip-check';

/** The formats read through officeparser. */
export type OfficeKind = 'xlsx' | 'ods' | 'pptx' | 'odp' | 'odt' | 'epub' | 'rtf';

/** officeparser's failures that are our limits (its decompression limits are set from ours). */
const LIMIT_CODES = new Set(['ZIP_SIZE_LIMIT_EXCEEDED', 'ZIP_ENTRY_COUNT_LIMIT_EXCEEDED']);

/** Runs officeparser on the file, with our limits; its failures become IngestErrors naming the format. */
async function parse(kind: OfficeKind, buf: Buffer, limits: ParseLimits): Promise<{ ast: OfficeParserAST; cellLimit: boolean }> {
  const name = kind.toUpperCase();
  let cellLimit = false;
  const config: OfficeParserConfig = {
    fileType: kind,
    decompressionLimits: {
      maxUncompressedBytes: limits.maxExpandedBytes,
      maxZipEntries: limits.maxZipEntries,
      // ODF writes runs of cells as one repeated cell: officeparser stops expanding them past this
      maxTableCells: limits.maxCells + 1,
    },
    // an XLSX cell's style (its number format) is read from its XML (see spreadsheet.ts)
    includeRawContent: kind === 'xlsx',
    serializeRawContent: false,
    ignoreComments: true,
    ignoreHeadersAndFooters: false,
    ignoreSlideMasters: true,
    extractAttachments: false,
    ocr: false,
    onWarning: (issue) => {
      if (issue.code === OfficeWarningType.TABLE_CELL_LIMIT_EXCEEDED) cellLimit = true;
    },
  };
  let ast: OfficeParserAST;
  try {
    ast = await OfficeParser.parseOffice(buf, config);
  } catch (e) {
    const code = (e as { officeIssue?: { code?: string } }).officeIssue?.code;
    if (code === 'ZIP_SIZE_LIMIT_EXCEEDED') throw new LimitError(`document expands to more than ${megabytes(limits.maxExpandedBytes)}`);
    if (code && LIMIT_CODES.has(code)) throw new LimitError(`the ${name} holds more than ${limits.maxZipEntries} files`);
    const reason = (e instanceof Error ? e.message.split('\n')[0] : String(e)).replace(/^\[OfficeParser\]:\s*/, '');
    throw new IngestError(`not a valid ${name} file (${reason})`);
  }
  return { ast, cellLimit };
}

/** Puts each table's header rows (see odfHeaderRows) back above its body rows, when the tables pair up one to one. */
function restoreHeaderRows(ast: OfficeParserAST, headers: string[][][]): void {
  const tables: OfficeContentNode[] = [];
  const walk = (nodes: OfficeContentNode[] | undefined) => {
    for (const n of nodes ?? []) {
      if (n.type === 'table') tables.push(n);
      walk(n.children);
    }
  };
  walk(ast.content);
  if (tables.length !== headers.length) return;
  tables.forEach((table, i) => {
    const rows = headers[i].map((cells) => ({
      type: 'row' as const,
      children: cells.map((text) => ({ type: 'cell' as const, text, children: [{ type: 'text' as const, text }] })),
    }));
    table.children = [...rows, ...(table.children ?? [])];
  });
}

/**
 * Reads an office document, e-book or RTF file with officeparser:
 * - XLSX, ODS: a page per sheet, each row read with its column headers (sheets.ts), cells as they
 *   display (an XLSX's number formats applied, spreadsheet.ts);
 * - PPTX, ODP: a page per slide: title, text, tables, speaker notes (slides.ts);
 * - ODT, EPUB (in spine order), RTF: converted text with headings, lists and tables, paged by the
 *   3,000-character rule as DOCX is.
 * A zip is checked (entries, expanded size) before anything expands it; an XLSX's sheet count
 * before its sheets are read.
 */
export async function parseOffice(kind: OfficeKind, buf: Buffer, limits: ParseLimits): Promise<PageSource> {
  if (kind !== 'rtf') await checkZip(buf, limits, kind.toUpperCase());
  let workbook: WorkbookInfo | null = null;
  if (kind === 'xlsx') workbook = await readWorkbook(buf, limits);
  const deck = kind === 'pptx' ? await readDeckOrder(buf) : null;
  const { ast, cellLimit } = await parse(kind, buf, limits);
  if (kind === 'xlsx' || kind === 'ods') {
    const sheets = spreadsheetSheets(ast, workbook);
    // officeparser stopped expanding an ODS's cells at the limit: its sheets are all there
    checkSheetCount(sheets.length, limits);
    if (cellLimit) throw tooManyCells(limits);
    return sheetPages(sheets, limits);
  }
  // an ODT's or ODP's tables can repeat cells as an ODS's do
  if (cellLimit) throw new LimitError(`the ${kind.toUpperCase()}'s tables have more than ${limits.maxCells} cells (SPREADSHEET_MAX_CELLS)`);
  if (kind === 'pptx' || kind === 'odp') return slidePages(ast, deck);
  if (kind === 'odt') restoreHeaderRows(ast, odfHeaderRows((await readParts(buf, (n) => n === 'content.xml', 'ODT')).get('content.xml')));
  return sectionedPages(documentText(ast.content));
}
