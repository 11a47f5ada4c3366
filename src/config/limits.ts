/** The limits on parsing one document, as configured (src/config/index.ts) and applied by src/ingest/. */

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
