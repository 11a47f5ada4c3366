import type { OcrLimits } from '../limits';
import { LimitError } from '../limits';
import type { ParsedPage } from '../types';
import { GrayImage, OcrResult, recognise } from './ocr';

/**
 * What every reader that recognises pages (images, scanned PDF pages) shares: the OCR limits and
 * the signal to the pool that a page's recognition starts and ends, so that the pool gives the
 * page its own processor-time limit (OCR_PAGE_TIMEOUT_SECONDS, see pool.ts).
 */

/** Told the page number when its recognition starts, null when it has ended. */
type RecognitionListener = (pageNumber: number | null) => void;
let listener: RecognitionListener | null = null;

/** Set by the parser worker for the task it runs (one task at a time per thread). */
export function onRecognition(fn: RecognitionListener | null): void {
  listener = fn;
}

/** Fails a page or image of more pixels than OCR_MAX_PIXELS (checked before it is decoded or rendered). */
export function checkPixels(width: number, height: number, ocr: OcrLimits, what: string): void {
  if (width * height > ocr.maxPixels)
    throw new LimitError(
      `${what} is ${width} × ${height} pixels (${Math.round((width * height) / 1e6)} megapixels), more than OCR_MAX_PIXELS (${ocr.maxPixels})`,
    );
}

/** Fails a document with more pages to recognise than OCR_MAX_PAGES (checked before any page is recognised). */
export function checkOcrPages(count: number, ocr: OcrLimits, more = false): void {
  if (count <= ocr.maxPages) return;
  throw new LimitError(
    more
      ? `the document has more than ${ocr.maxPages} pages that need OCR, the limit set by OCR_MAX_PAGES`
      : `the document has ${count} pages that need OCR, more than OCR_MAX_PAGES (${ocr.maxPages})`,
  );
}

/**
 * Recognises one page, with the pool told when its work starts (`image` decodes or renders it, or
 * tells that the page is blank: null) and ends; the page as a reader hands it on.
 */
export async function recognisePage(pageNumber: number, image: () => Promise<GrayImage | null>, ocr: OcrLimits): Promise<ParsedPage> {
  return onPageClock(pageNumber, async () => {
    const pixels = await image();
    if (!pixels) return { pageNumber, text: '' };
    return ocrPage(pageNumber, await recognise(pixels, ocr));
  });
}

/** A recognised page as a reader hands it on. */
export const ocrPage = (pageNumber: number, { text, confidence, boxes }: OcrResult): ParsedPage => ({
  pageNumber,
  text,
  method: 'ocr',
  confidence,
  boxes,
});

/**
 * Runs `work` for page `pageNumber` with the pool told when it starts and ends (the page's
 * processor-time limit counts it): its recognition, or its drawing before another thread recognises it.
 */
export async function onPageClock<T>(pageNumber: number, work: () => Promise<T>): Promise<T> {
  listener?.(pageNumber);
  try {
    return await work();
  } finally {
    listener?.(null);
  }
}
