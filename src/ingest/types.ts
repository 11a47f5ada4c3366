/** The formats the ingestion pipeline reads. */
export const DOCUMENT_KINDS = ['pdf', 'docx', 'markdown', 'text', 'html'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

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
