import { useEffect, useRef, useState } from 'react';
import type { PDFDocumentProxy } from 'pdfjs-dist';
import { ApiError } from '../lib/api';
import { openPdf, startRender } from '../lib/pdf';
import type { ChunkLocation, ChunkSource, DocumentInfo } from '../lib/types';
import { useSession } from '../session';
import { ErrorText, Loading, useLoad } from './common';
import { DownloadButton } from './DownloadButton';
import { ReaderView } from './ReaderView';

const ZOOMS = [0.75, 1, 1.25, 1.5, 2];

/** What a viewer opens: a document at a page, with a cited chunk marked when there is one. */
export interface ViewerTarget {
  documentId: string;
  page: number;
  chunkId?: string | null;
}

/**
 * A document at the cited place. A PDF shows its page itself (pdf.js, from our own origin), the
 * cited passage marked over its words, with "Page N of M", previous/next, zoom and a download of
 * the original; any other format shows a reader view of its converted text with the passage
 * marked. The marked passage is a <mark> holding the cited words. A citation whose chunk is gone
 * (re-analysed since) opens its page unmarked; one whose document was deleted says so.
 */
export function DocumentViewer({ target, onPage }: { target: ViewerTarget; onPage?: (page: number) => void }) {
  const { api } = useSession();
  const loaded = useLoad(
    async (signal) => {
      const [doc, source] = await Promise.all([
        api.get(`/documents/${encodeURIComponent(target.documentId)}`, signal).then(
          (r) => r.document,
          (e: unknown) => {
            if (e instanceof ApiError && e.status === 404) return null;
            throw e;
          },
        ),
        target.chunkId
          ? api.get(`/chat/chunks/${encodeURIComponent(target.chunkId)}/source`, signal).catch(() => null)
          : Promise.resolve(null),
      ]);
      return { doc, source };
    },
    [target.documentId, target.chunkId],
  );

  if (loaded.loading) return <Loading what="the document" />;
  if (loaded.error) return <ErrorText>{loaded.error}</ErrorText>;
  const { doc, source } = loaded.data!;
  if (!doc)
    return (
      <p className="notice" role="status">
        This document was deleted, so the cited passage can no longer be opened.
      </p>
    );
  return doc.mimeType === 'application/pdf' ? (
    <PdfView doc={doc} source={source} initialPage={target.page} onPage={onPage} />
  ) : (
    <ReaderView doc={doc} source={source} page={target.page} />
  );
}

function PdfView(props: { doc: DocumentInfo; source: ChunkSource | null; initialPage: number; onPage?: (page: number) => void }) {
  const { doc, source } = props;
  const { api } = useSession();
  const [pdf, setPdf] = useState<PDFDocumentProxy | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [page, setPage] = useState(props.initialPage);
  const [zoom, setZoom] = useState(1);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const firstMark = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    let gone = false;
    let opened: PDFDocumentProxy | null = null;
    openPdf(doc.id, api.accessToken).then(
      (d) => {
        opened = d;
        if (gone) void d.destroy();
        else setPdf(d);
      },
      (e: unknown) => !gone && setError(`The PDF could not be opened: ${e instanceof Error ? e.message : String(e)}`),
    );
    return () => {
      gone = true;
      void opened?.destroy();
    };
  }, [doc.id, api]);

  useEffect(() => {
    if (!pdf || !canvas.current) return;
    const render = startRender(pdf, Math.min(Math.max(1, page), pdf.numPages), canvas.current, zoom * 1.25);
    render.done.then(setSize, (e: unknown) => {
      if ((e as { name?: string })?.name !== 'RenderingCancelledException') setError(String(e));
    });
    return () => render.cancel();
  }, [pdf, page, zoom]);

  useEffect(() => {
    if (size) firstMark.current?.scrollIntoView({ block: 'center' });
  }, [size]);

  const go = (n: number) => {
    setPage(n);
    props.onPage?.(n);
  };
  const total = pdf?.numPages ?? 0;
  const marks = (source?.locations ?? []).filter((l) => l.page === page);
  return (
    <div className="viewer">
      <div className="viewer-bar" role="toolbar" aria-label="Page">
        <button type="button" disabled={page <= 1} onClick={() => go(page - 1)}>
          Previous page
        </button>
        <span className="page-of" aria-live="polite">
          {total ? `Page ${page} of ${total}` : `Page ${page}`}
        </span>
        <button type="button" disabled={!total || page >= total} onClick={() => go(page + 1)}>
          Next page
        </button>
        <button type="button" aria-label="Zoom out" disabled={zoom <= ZOOMS[0]} onClick={() => setZoom(ZOOMS[ZOOMS.indexOf(zoom) - 1])}>
          −
        </button>
        <span>{Math.round(zoom * 100)}%</span>
        <button
          type="button"
          aria-label="Zoom in"
          disabled={zoom >= ZOOMS[ZOOMS.length - 1]}
          onClick={() => setZoom(ZOOMS[ZOOMS.indexOf(zoom) + 1])}
        >
          +
        </button>
        <DownloadButton doc={doc} />
      </div>
      <ErrorText>{error}</ErrorText>
      {!pdf && !error && <Loading what="the page" />}
      <div className="pdf-page" style={size ? { width: size.width, height: size.height } : undefined}>
        <canvas ref={canvas} role="img" aria-label={`Page ${page} of ${doc.name}`} />
        {size && marks.map((l, i) => <PassageMark key={i} location={l} firstRef={i === 0 ? firstMark : undefined} />)}
      </div>
      {source && !source.locations && page === source.pageNumber && (
        <blockquote className="passage">
          <mark>{source.snippet}</mark>
        </blockquote>
      )}
    </div>
  );
}

/** The cited words on a page: highlights over their boxes, in a <mark> that holds the words themselves. */
function PassageMark({ location, firstRef }: { location: ChunkLocation; firstRef?: React.Ref<HTMLSpanElement> }) {
  const pct = (v: number) => `${(v * 100).toFixed(3)}%`;
  return (
    <mark className="cited-passage">
      <span className="sr-only">{location.text}</span>
      {(location.boxes ?? []).map((b, i) => (
        <span
          key={i}
          ref={i === 0 ? firstRef : undefined}
          className="cited-box"
          aria-hidden="true"
          style={{ left: pct(b.x), top: pct(b.y), width: pct(b.w), height: pct(b.h) }}
        />
      ))}
    </mark>
  );
}
