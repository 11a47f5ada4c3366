// The limits on parsing one document: their settings (read here for src/config/index.ts) and their shapes (applied by src/ingest/).
import path from 'node:path';
import { bool, ConfigError, type Env, int, str } from './env';

/** What one document may expand to while it is parsed (checked inside the parser thread). */
export interface ParseLimits {
  /** Uncompressed bytes of a DOCX's zip entries, and characters of text extracted from any file. */
  maxExpandedBytes: number;
  /** Entries in a DOCX's zip. */
  maxZipEntries: number;
  /** Elements and text nodes of an HTML file (or of the HTML a DOCX converts to). */
  htmlMaxNodes: number;
  /** Nesting depth of HTML elements. */
  htmlMaxDepth: number;
  /** Pages of a document: a PDF's, and those of any other format once paginated (PDF_MAX_PAGES). */
  pdfMaxPages: number;
  /** Characters of text on one PDF page. */
  pdfMaxPageChars: number;
  /** Chunks of one document, of any format (MAX_CHUNKS_PER_DOCUMENT). */
  maxChunks: number;
  /** Sheets of one spreadsheet (SPREADSHEET_MAX_SHEETS). */
  maxSheets: number;
  /** Non-empty cells of one spreadsheet or delimited file, all sheets together (SPREADSHEET_MAX_CELLS). */
  maxCells: number;
  /** Attachments read from one mail document, an MBOX's messages together (MAIL_MAX_ATTACHMENTS). */
  maxAttachments: number;
  /** Optical character recognition of scans and images; null when OCR=false. */
  ocr: OcrLimits | null;
}

/** How scans and images are recognised (OCR_* settings). */
export interface OcrLimits {
  /** Tesseract language codes joined by `+`, as OCR_LANGUAGES gives them: `eng`, `eng+fra`. */
  languages: string;
  /** A directory holding `<lang>.traineddata` (or `.traineddata.gz`) files beyond the bundled English (OCR_DATA_PATH). */
  dataPath: string | null;
  /** Pixels of one page or image, as rendered or decoded (OCR_MAX_PIXELS): a larger one fails the document. */
  maxPixels: number;
  /** Processor time for recognising one page (OCR_PAGE_TIMEOUT_SECONDS), in ms. */
  pageTimeoutMs: number;
  /** Pages of one document that may need recognition (OCR_MAX_PAGES). */
  maxPages: number;
}

/** The pool's limits per document: the parser thread's heap, and the processor time of one parse (see pool.ts). */
export interface PoolLimits {
  threads: number;
  maxHeapMb: number;
  /**
   * Scheduling priority of the parser threads (Linux nice, 0–19): 10 by default, so parsing gives
   * way to the thread that answers requests; 0 suits a process that only ingests.
   */
  nice: number;
  timeoutMs: number;
}

/** OCR_LANGUAGES: Tesseract codes joined by `+` (`eng`, `eng+fra`, `chi_sim`); `eng` by default. */
function ocrLanguages(env: Env): string {
  const raw = str(env, 'OCR_LANGUAGES') ?? 'eng';
  if (!/^[a-z][a-z0-9_]{1,30}(\+[a-z][a-z0-9_]{1,30}){0,9}$/i.test(raw))
    throw new ConfigError(`OCR_LANGUAGES must be Tesseract language codes joined by +, such as eng+fra, got "${raw}"`);
  return raw;
}

/** PARSER_*, HTML_*, PDF_*, SPREADSHEET_*, MAIL_*, OCR_* and MAX_CHUNKS_PER_DOCUMENT: what one document may cost, and the pool that parses. */
export function ingestLimits(env: Env, workerConcurrency: number): { parseLimits: ParseLimits; parserPool: PoolLimits } {
  const MB = 1024 * 1024;
  return {
    parseLimits: {
      maxExpandedBytes: int(env, 'PARSER_MAX_EXPANDED_MB', 200, 1, 16_384) * MB,
      maxZipEntries: int(env, 'PARSER_MAX_ZIP_ENTRIES', 5000, 10, 1_000_000),
      htmlMaxNodes: int(env, 'HTML_MAX_NODES', 500_000, 100, 100_000_000),
      htmlMaxDepth: int(env, 'HTML_MAX_DEPTH', 256, 8, 10_000),
      pdfMaxPages: int(env, 'PDF_MAX_PAGES', 5000, 1, 1_000_000),
      pdfMaxPageChars: int(env, 'PDF_MAX_PAGE_CHARS', 100_000, 1000, 100_000_000),
      maxChunks: int(env, 'MAX_CHUNKS_PER_DOCUMENT', 100_000, 10, 100_000_000),
      maxSheets: int(env, 'SPREADSHEET_MAX_SHEETS', 200, 1, 100_000),
      maxCells: int(env, 'SPREADSHEET_MAX_CELLS', 1_000_000, 100, 1_000_000_000),
      maxAttachments: int(env, 'MAIL_MAX_ATTACHMENTS', 100, 0, 100_000),
      ocr: bool(env, 'OCR', true)
        ? {
            languages: ocrLanguages(env),
            dataPath: str(env, 'OCR_DATA_PATH') ? path.resolve(str(env, 'OCR_DATA_PATH')!) : null,
            maxPixels: int(env, 'OCR_MAX_PIXELS', 40_000_000, 10_000, 1_000_000_000),
            pageTimeoutMs: int(env, 'OCR_PAGE_TIMEOUT_SECONDS', 30, 1, 3600) * 1000,
            maxPages: int(env, 'OCR_MAX_PAGES', 500, 1, 1_000_000),
          }
        : null,
    },
    parserPool: {
      threads: int(env, 'PARSER_THREADS', workerConcurrency, 1, 64),
      maxHeapMb: int(env, 'PARSER_MAX_HEAP_MB', 512, 64, 65_536),
      timeoutMs: int(env, 'PARSER_TIMEOUT_SECONDS', 60, 1, 86_400) * 1000,
      nice: int(env, 'PARSER_NICE', 10, 0, 19),
    },
  };
}
