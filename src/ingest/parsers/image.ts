import type { ParseLimits } from '../limits';
import { IngestError, ImageKind, ParsedPage } from '../types';

/**
 * Reads a raster image by OCR: each TIFF page or animation frame is a page (`onTotal` first, then
 * each page in order). Placeholder until the OCR reader lands.
 */
export async function readImage(
  kind: ImageKind,
  _buf: Buffer,
  _limits: ParseLimits,
  _onTotal: (pagesTotal: number) => void,
  _onPage: (page: ParsedPage) => void,
  _pace: () => Promise<void>,
): Promise<number> {
  throw new IngestError(`${kind.toUpperCase()} images are not read yet`);
}
