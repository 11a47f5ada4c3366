/**
 * pdf.js in the browser, loaded only when a PDF is opened (a chunk of its own), its worker served
 * from our own assets (/assets/pdf.worker.min.mjs, copied there by scripts/build-web.mjs). The
 * original is read with Range requests (GET /api/documents/:id/original answers 206), so a page of
 * a long PDF opens without the whole file being fetched.
 */
import type { PDFDocumentProxy } from 'pdfjs-dist';

type PdfJs = typeof import('pdfjs-dist');
let loading: Promise<PdfJs> | null = null;

function pdfjs(): Promise<PdfJs> {
  loading ??= import('pdfjs-dist').then((lib) => {
    lib.GlobalWorkerOptions.workerSrc = '/assets/pdf.worker.min.mjs';
    return lib;
  });
  return loading;
}

/** Opens the original of a document for rendering, with the caller's bearer token. */
export async function openPdf(documentId: string, token: string | null): Promise<PDFDocumentProxy> {
  const lib = await pdfjs();
  return lib.getDocument({
    url: `/api/documents/${encodeURIComponent(documentId)}/original`,
    httpHeaders: token ? { authorization: `Bearer ${token}` } : {},
    // ranges only: no streaming of the whole body, no fetching of the rest in the background
    disableStream: true,
    disableAutoFetch: true,
    rangeChunkSize: 256 * 1024,
    isEvalSupported: false,
    // fonts are drawn as paths: no FontFace from data the file carries
    disableFontFace: true,
  }).promise;
}

/**
 * Starts drawing page `n` into `canvas` at `scale` (sharp on high-density screens); `done` gives its
 * CSS size. `cancel` stops it (a canvas takes one drawing at a time).
 */
export function startRender(
  doc: PDFDocumentProxy,
  n: number,
  canvas: HTMLCanvasElement,
  scale: number,
): { done: Promise<{ width: number; height: number }>; cancel(): void } {
  let cancelled = false;
  let task: { cancel(): void } | null = null;
  const done = doc.getPage(n).then(async (page) => {
    if (cancelled) throw Object.assign(new Error('cancelled'), { name: 'RenderingCancelledException' });
    const viewport = page.getViewport({ scale });
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.floor(viewport.width * ratio);
    canvas.height = Math.floor(viewport.height * ratio);
    canvas.style.width = `${viewport.width}px`;
    canvas.style.height = `${viewport.height}px`;
    const render = page.render({
      canvas,
      canvasContext: canvas.getContext('2d')!,
      viewport,
      transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0],
    });
    task = render;
    await render.promise;
    return { width: viewport.width, height: viewport.height };
  });
  return {
    done,
    cancel: () => {
      cancelled = true;
      task?.cancel();
    },
  };
}
