import sharp from 'sharp';
import type { OcrLimits, ParseLimits } from '../limits';
import { LimitError } from '../limits';
import { IngestError, ImageKind, PageSink } from '../types';
import { checkOcrPages, checkPixels } from './ocr-pages';
import { OrderedPages } from './ocr-spread';

// the parser thread decodes one image at a time: libvips's own threads would run beside the
// pool's (at the server's priority), and its cache would keep decoded pages the thread no longer needs
sharp.concurrency(1);
sharp.cache(false);

/** Why sharp refused an image, in words a user can act on. */
function describeImageError(kind: ImageKind, e: unknown): IngestError {
  const message = String((e as Error)?.message ?? e);
  if (/pixel limit/i.test(message)) return new LimitError(`the ${kind.toUpperCase()} image has more pixels than OCR_MAX_PIXELS allows`);
  return new IngestError(`not a readable ${kind.toUpperCase()} image (${message.split('\n')[0]})`);
}

/** The number of pages (TIFF pages, animation frames) of an image, read from its header. */
async function pageCount(kind: ImageKind, buf: Buffer): Promise<number> {
  try {
    const meta = await sharp(buf, { limitInputPixels: false }).metadata();
    return Math.max(1, meta.pages ?? 1);
  } catch (e) {
    throw describeImageError(kind, e);
  }
}

/**
 * One page of an image as Tesseract wants it: its header is read and its pixels checked against
 * OCR_MAX_PIXELS before anything is decoded (a pixel-flood bomb declares its size up front), then it
 * is decoded (sharp's own pixel limit too), turned upright by its EXIF orientation, flattened onto
 * white and made grayscale.
 */
async function decodePage(kind: ImageKind, buf: Buffer, page: number, pageNumber: number, ocr: OcrLimits) {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(buf, { page, limitInputPixels: false }).metadata();
  } catch (e) {
    throw describeImageError(kind, e);
  }
  // an animation's frames share one canvas: pageHeight is a frame's height
  const height = meta.pageHeight ?? meta.height ?? 0;
  checkPixels(meta.width ?? 0, height, ocr, `page ${pageNumber} of the ${kind.toUpperCase()} image`);
  try {
    const { data, info } = await sharp(buf, { page, limitInputPixels: ocr.maxPixels })
      .rotate()
      .flatten({ background: '#ffffff' })
      .toColourspace('b-w')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 1) throw new Error(`decoded to ${info.channels} channels`);
    // density is pixels per inch unless the file says centimetres (sharp converts); absent, Tesseract estimates
    return { data, width: info.width, height: info.height, dpi: meta.density };
  } catch (e) {
    throw describeImageError(kind, e);
  }
}

/**
 * Reads a raster image by OCR: each TIFF page or animation frame is a page (`onTotal` first, then
 * each page in order, awaiting `pace` between them). Fails with a LimitError for an image over
 * OCR_MAX_PIXELS or with more pages than OCR_MAX_PAGES, and with an IngestError when OCR is off.
 */
export async function readImage(
  kind: ImageKind,
  buf: Buffer,
  limits: ParseLimits,
  { onTotal, onPage, pace = () => Promise.resolve() }: PageSink,
): Promise<number> {
  const { ocr } = limits;
  if (!ocr) throw new IngestError(`${kind.toUpperCase()} images are read by OCR, and OCR is off on this server (OCR=false)`);
  const pages = await pageCount(kind, buf);
  if (pages > limits.pdfMaxPages) throw new LimitError(`the image has ${pages} pages, more than the limit of ${limits.pdfMaxPages}`);
  checkOcrPages(pages, ocr);
  onTotal(pages);
  // pages may be recognised by other threads of the pool meanwhile (ocr-spread.ts), handed on in order
  const out = new OrderedPages(ocr, onPage, pace);
  for (let page = 0; page < pages; page++) await out.scan(page + 1, () => decodePage(kind, buf, page, page + 1, ocr));
  await out.finish();
  return pages;
}
