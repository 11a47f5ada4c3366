import type { OcrLimits } from '../limits';
import type { GrayImage } from './ocr';
import { checkOcrPages } from './ocr-pages';

/*
 * The scanned pages of a PDF: which pages need OCR, how many of them a document has, and their
 * rendering (pdf.js draws through @napi-rs/canvas in Node) to a grayscale image for Tesseract.
 */

/** The part of a pdf.js page used here. */
interface PdfPage {
  view: number[];
  getViewport(opts: { scale: number }): { width: number; height: number };
  render(opts: { canvas: never; canvasContext: never; viewport: never }): { promise: Promise<void> };
  getTextContent(): Promise<{ items: Array<{ str?: string }> }>;
  getOperatorList(): Promise<{ fnArray: number[] }>;
  cleanup(): void;
}
interface CanvasAndContext {
  canvas: unknown;
  context: { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
}
/** The part of a pdf.js document used here. */
export interface PdfDoc {
  numPages: number;
  getPage(n: number): Promise<PdfPage>;
  canvasFactory: { create(w: number, h: number): CanvasAndContext; destroy(c: CanvasAndContext): void };
}

/**
 * A page whose text layer holds fewer visible characters than this per square inch is taken for a
 * scan (a text page holds 20–40; a scan's text layer is empty, or a stamp such as "Scanned by …").
 */
const MIN_CHARS_PER_SQUARE_INCH = 0.25;
/**
 * Pages are rendered at 200 dpi for recognition: office text (9–12 pt) then has an x-height of
 * 12–17 pixels, which Tesseract's LSTM reads well. The cost hardly depends on it (Tesseract scales
 * each line to a fixed height): a dense 150-dpi scan took 4.2 s of processor time a page rendered
 * at 150 dpi and 4.5 s at 200.
 */
const OCR_DPI = 200;
/** @napi-rs/canvas (Skia) refuses larger sides. */
const MAX_SIDE = 32_767;

/** pdf.js's drawing operators that put ink on a page: a page without any is blank, with nothing to recognise. */
const PAINTING = [
  'stroke',
  'closeStroke',
  'fill',
  'eoFill',
  'fillStroke',
  'eoFillStroke',
  'closeFillStroke',
  'closeEOFillStroke',
  'constructPath',
  'shadingFill',
  'showText',
  'showSpacedText',
  'nextLineShowText',
  'nextLineSetSpacingShowText',
  'paintImageMaskXObject',
  'paintImageMaskXObjectGroup',
  'paintImageXObject',
  'paintInlineImageXObject',
  'paintInlineImageXObjectGroup',
  'paintImageXObjectRepeat',
  'paintImageMaskXObjectRepeat',
  'paintSolidColorImageMask',
];

const visibleChars = (strs: Iterable<string>): number => {
  let n = 0;
  for (const s of strs) for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 32) n++;
  return n;
};

/** Whether a page with this text needs OCR: too little text for its area (`view` in points, 72 to the inch). */
export function needsOcr(view: number[], strs: Iterable<string>): boolean {
  const squareInches = (Math.abs(view[2] - view[0]) * Math.abs(view[3] - view[1])) / (72 * 72);
  return visibleChars(strs) < Math.max(1, squareInches * MIN_CHARS_PER_SQUARE_INCH);
}

/** pdf.js's operators that paint an image. */
const IMAGES = PAINTING.filter((name) => /Image/.test(name));

/**
 * Whether a page is to be recognised: too little text for its area (needsOcr) and, when its text
 * layer holds any word at all, an image on the page too — a sparse page of real text (a title page,
 * a chapter's opening, a slide) is read from its text layer; a scan under a stamp such as "Scanned
 * by …" shows its page as an image.
 */
export async function looksScanned(
  page: Pick<PdfPage, 'view' | 'getOperatorList'>,
  strs: string[],
  ops: Record<string, number>,
): Promise<boolean> {
  if (!needsOcr(page.view, strs)) return false;
  if (visibleChars(strs) === 0) return true;
  const images = new Set(IMAGES.map((name) => ops[name]));
  return (await page.getOperatorList()).fnArray.some((op) => images.has(op));
}

/**
 * Counts the pages from `from` on that need OCR, and fails the document at once when they are more
 * than OCR_MAX_PAGES (a 5,000-page scan fails in seconds, not after hours of recognition). Stops
 * counting once the limit is passed.
 */
export async function checkScannedPages(doc: PdfDoc, from: number, ocr: OcrLimits): Promise<void> {
  let count = 0;
  for (let n = from; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    try {
      const { items } = await page.getTextContent();
      if (
        needsOcr(
          page.view,
          items.map((it) => (typeof it.str === 'string' ? it.str : '')),
        )
      )
        count++;
    } finally {
      page.cleanup();
    }
    if (count > ocr.maxPages) checkOcrPages(count, ocr, n < doc.numPages);
  }
}

/** The scale a page is rendered at: OCR_DPI, less where the page would pass OCR_MAX_PIXELS or a canvas side. */
function renderScale(width: number, height: number, ocr: OcrLimits): number {
  const dpiScale = OCR_DPI / 72;
  const pixelScale = Math.sqrt(ocr.maxPixels / Math.max(1, width * height));
  return Math.min(dpiScale, pixelScale, MAX_SIDE / Math.max(1, width), MAX_SIDE / Math.max(1, height));
}

/** Renders a page to a grayscale image within OCR_MAX_PIXELS (the page's drawing is done in this thread). */
async function renderPage(doc: PdfDoc, page: PdfPage, ocr: OcrLimits): Promise<GrayImage> {
  const base = page.getViewport({ scale: 1 });
  const scale = renderScale(base.width, base.height, ocr);
  const viewport = page.getViewport({ scale });
  const width = Math.max(1, Math.floor(viewport.width));
  const height = Math.max(1, Math.floor(viewport.height));
  const target = doc.canvasFactory.create(width, height);
  try {
    // pdf.js paints the page white first, so unpainted pixels are paper, not transparent black
    await page.render({ canvas: target.canvas as never, canvasContext: target.context as never, viewport: viewport as never }).promise;
    const rgba = target.context.getImageData(0, 0, width, height).data;
    const gray = new Uint8Array(width * height);
    // ITU-R BT.601 luma, in integers
    for (let i = 0, j = 0; j < gray.length; i += 4, j++) gray[j] = (rgba[i] * 77 + rgba[i + 1] * 150 + rgba[i + 2] * 29) >> 8;
    return { data: gray, width, height, dpi: Math.round(72 * scale) };
  } finally {
    doc.canvasFactory.destroy(target);
  }
}

/**
 * Draws page `n` of a PDF for recognition (its page number stays pdf.js's); a page that draws
 * nothing is blank (null), an empty page of text. `ops` is pdf.js's OPS table. Called under the
 * page's clock: a page that draws for ever is the page's doing.
 */
export async function drawPdfPage(doc: PdfDoc, n: number, ocr: OcrLimits, ops: Record<string, number>): Promise<GrayImage | null> {
  const page = await doc.getPage(n);
  const painting = new Set(PAINTING.map((name) => ops[name]));
  try {
    return (await page.getOperatorList()).fnArray.some((op) => painting.has(op)) ? await renderPage(doc, page, ocr) : null;
  } finally {
    page.cleanup();
  }
}
