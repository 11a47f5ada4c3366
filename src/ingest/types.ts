/**
 * The formats the ingestion pipeline reads (a document's `format`). `ole2` is a compound file
 * (Office 97–2003, Outlook .msg) until its parser tells which it is.
 */
export const DOCUMENT_KINDS = [
  'pdf',
  'docx',
  'markdown',
  'text',
  'html',
  'xlsx',
  'ods',
  'csv',
  'tsv',
  'pptx',
  'odp',
  'odt',
  'epub',
  'rtf',
  'eml',
  'mbox',
  'msg',
  'ole2',
  'png',
  'jpeg',
  'tiff',
  'webp',
  'gif',
] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export const isDocumentKind = (s: string): s is DocumentKind => (DOCUMENT_KINDS as readonly string[]).includes(s);

/** Raster image formats: read by OCR, each frame or TIFF page a page. */
export const IMAGE_KINDS = ['png', 'jpeg', 'tiff', 'webp', 'gif'] as const satisfies readonly DocumentKind[];
export type ImageKind = (typeof IMAGE_KINDS)[number];
export const isImageKind = (kind: DocumentKind): kind is ImageKind => (IMAGE_KINDS as readonly string[]).includes(kind);

/** One page of extracted text; paragraphs are separated by a blank line. */
export interface ParsedPage {
  /** 1-based, as the reader of the original file would count it. */
  pageNumber: number;
  text: string;
  /**
   * Headings: each starts at character `offset` of `text`. `level` (1 outermost) where the format
   * tells it; none where it does not (a PDF's). Once HeadingTrail has seen the pages, `title` holds
   * the titles of the sections it lies in too, outermost first, one per line.
   */
  sections?: Array<{ offset: number; title: string; level?: number }>;
  /** How the page's text was obtained: the file's own text (a PDF's text layer, a converted format) or OCR. Absent: 'text'. */
  method?: 'text' | 'ocr';
  /** Mean OCR word confidence, 0–100 (OCR pages only). */
  confidence?: number;
  /**
   * Where runs of `text` lie on the page (PDF and OCR pages): characters [start, end) of `text` are drawn in the box
   * x, y, w, h, given as fractions of the page's width and height from its top-left corner.
   */
  boxes?: Array<{ start: number; end: number; x: number; y: number; w: number; h: number }>;
}

/**
 * How a run of a document's pages was read: consecutive pages from the file's own text form one run;
 * each OCR'd page is a run of its own with its mean word confidence (0–100).
 */
export interface PageRun {
  from: number;
  to: number;
  method: 'text' | 'ocr';
  confidence: number | null;
}

/** Adds a page to a document's runs (see PageRun). */
export function addPageRun(runs: PageRun[], page: Pick<ParsedPage, 'pageNumber' | 'method' | 'confidence'>): void {
  const method = page.method ?? 'text';
  const last = runs[runs.length - 1];
  if (method === 'text' && last?.method === 'text' && last.to === page.pageNumber - 1) last.to = page.pageNumber;
  else
    runs.push({
      from: page.pageNumber,
      to: page.pageNumber,
      method,
      confidence: method === 'ocr' ? Math.round((page.confidence ?? 0) * 10) / 10 : null,
    });
}

/**
 * Where a reader hands on a file's pages as it reads them: the count first (`onTotal`), then each
 * page in order (`onPage`), awaiting `pace` (when given) between pages so the consumer can hold
 * reading back until it has caught up.
 */
export interface PageSink {
  onTotal: (pagesTotal: number) => void;
  onPage: (page: ParsedPage) => void;
  pace?: () => Promise<void>;
}

/** Called as pages are read: `pagesTotal` is known up front for PDFs, at the end for the rest. */
export type ProgressFn = (pagesDone: number, pagesTotal: number) => void | Promise<void>;

export interface ParseOptions {
  onProgress?: ProgressFn;
  /** Receives each page as soon as it is read, in page order (so indexing can overlap parsing). */
  onPage?: (page: ParsedPage) => void;
  /** Stops parsing (the PDF reader thread is terminated). */
  signal?: AbortSignal;
}

/**
 * A problem with the file itself (corrupt, unsupported, no text): retrying cannot help, so the
 * document fails at once with this readable message instead of going through the job's retries.
 */
export class IngestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IngestError';
  }
}

/**
 * A converted document's pages, produced one at a time; each call starts again from the first page
 * (the page limit is checked in one pass before the pages are read in the next).
 */
export type PageSource = () => Iterable<ParsedPage>;
