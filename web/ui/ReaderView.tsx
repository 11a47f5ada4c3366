import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../lib/api';
import { piecesOf } from '../lib/reader';
import type { ChunkSource, DocumentInfo, DocumentText } from '../lib/types';
import { useSession } from '../session';
import { ErrorText, Loading, useLoad } from './common';
import { DownloadButton } from './DownloadButton';

/**
 * A converted document (DOCX, HTML, Markdown, text, office, mail): its whole converted text (GET
 * /documents/:id/text, a window of pages at a time) with the cited passage marked where the chunk's
 * locations say it lies (a passage across a page break is marked on both pages), inside its
 * section, and scrolled into view. A document without converted text (an image) shows the
 * chunk in its surrounding paragraphs.
 */
export function ReaderView({ doc, source, page }: { doc: DocumentInfo; source: ChunkSource | null; page: number }) {
  const { api } = useSession();
  const firstMark = useRef<HTMLElement>(null);
  const [more, setMore] = useState<DocumentText[]>([]);
  const [moreError, setMoreError] = useState<string | null>(null);
  const cited = source?.pageNumber ?? page;
  const loaded = useLoad(
    async (signal) => {
      const get = (from: number) => api.get(`/documents/${encodeURIComponent(doc.id)}/text?from=${from}`, signal);
      try {
        const first = await get(1);
        const last = first.pages[first.pages.length - 1]?.pageNumber ?? 0;
        // a large document: the window that holds the cited page
        return first.nextPage !== null && cited > last ? await get(cited) : first;
      } catch (e) {
        if (e instanceof ApiError && e.status === 409) return null;
        throw e;
      }
    },
    [doc.id, cited],
  );
  useEffect(() => {
    // the passage's start at the top: a passage may be taller than the view
    if (!loaded.loading) firstMark.current?.scrollIntoView({ block: 'start' });
  }, [loaded.loading]);

  if (loaded.loading) return <Loading what="the text" />;
  if (loaded.error) return <ErrorText>{loaded.error}</ErrorText>;
  const text = loaded.data;
  if (!text) return <ContextView doc={doc} source={source} page={page} />;
  const windows = [text, ...more];
  const pages = windows.flatMap((w) => w.pages);
  const next = windows[windows.length - 1].nextPage;
  let first = true;
  return (
    <div className="viewer reader">
      <div className="viewer-bar">
        <span className="page-of">
          Page {cited} of {text.pageCount}
        </span>
        <DownloadButton doc={doc} />
      </div>
      {!source && <p className="notice">The cited passage is no longer indexed as it was; the text is shown at page {page}.</p>}
      <article className="reader-text" aria-label={`Text of ${doc.name}`}>
        {pages.map((p) => {
          const marks = (source?.locations ?? []).filter((l) => l.page === p.pageNumber);
          return (
            <section
              key={p.pageNumber}
              ref={!source && p.pageNumber === cited ? firstMark : undefined}
              className="reader-page"
              aria-label={`Page ${p.pageNumber}`}
            >
              {piecesOf(p, marks).map((piece, i) => {
                if (piece.kind === 'heading')
                  return (
                    <strong key={i} className={`reader-heading level-${piece.level ?? 0}`}>
                      {piece.text}
                    </strong>
                  );
                if (piece.kind === 'text') return <span key={i}>{piece.text}</span>;
                const ref = first ? firstMark : undefined;
                first = false;
                return (
                  <mark key={i} ref={ref}>
                    {piece.text}
                  </mark>
                );
              })}
            </section>
          );
        })}
        {next !== null && (
          <button
            type="button"
            onClick={() =>
              void api.get(`/documents/${encodeURIComponent(doc.id)}/text?from=${next}`).then(
                (w) => setMore((m) => [...m, w]),
                (e: unknown) => setMoreError(e instanceof Error ? e.message : String(e)),
              )
            }
          >
            More of the text (from page {next})
          </button>
        )}
        <ErrorText>{moreError}</ErrorText>
      </article>
    </div>
  );
}

/** Without converted text (an image): the chunk inside its surrounding paragraphs, marked. */
function ContextView({ doc, source, page }: { doc: DocumentInfo; source: ChunkSource | null; page: number }) {
  const mark = useRef<HTMLElement>(null);
  useEffect(() => mark.current?.scrollIntoView({ block: 'center' }), [source]);
  if (!source)
    return (
      <div className="viewer reader">
        <p className="notice">The cited passage is no longer indexed as it was (page {page}); the document itself is still here.</p>
        <DownloadButton doc={doc} />
      </div>
    );
  const at = source.context.indexOf(source.snippet);
  return (
    <div className="viewer reader">
      <div className="viewer-bar">
        <span className="page-of">Page {source.pageNumber}</span>
        <DownloadButton doc={doc} />
      </div>
      <article className="reader-text">
        {at < 0 ? (
          <mark ref={mark}>{source.snippet}</mark>
        ) : (
          <>
            {source.context.slice(0, at)}
            <mark ref={mark}>{source.snippet}</mark>
            {source.context.slice(at + source.snippet.length)}
          </>
        )}
      </article>
    </div>
  );
}
