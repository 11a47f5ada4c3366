import { useEffect, useRef } from 'react';
import type { CitationTarget } from '../lib/chat-turns';
import { documentPath, onLinkClick } from '../lib/router';
import { DocumentViewer } from './DocumentViewer';

/**
 * A citation opened: its number and document in the heading, the document at the cited place
 * (DocumentViewer), and a link that opens the same view as a page of its own (shareable with anyone
 * who has access). Escape closes it, and focus goes back to the citation that opened it.
 */
export function CitationDialog({ projectId, target, onClose }: { projectId: string; target: CitationTarget; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(document.activeElement);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const close = () => {
    onClose();
    if (opener.current instanceof HTMLElement) opener.current.focus();
  };
  const link = target.documentId ? documentPath(projectId, target.documentId, target.pageNumber, target.chunkId) : null;
  return (
    <dialog ref={ref} className="source-dialog citation-viewer" aria-labelledby="citation-title" onClose={close}>
      <div className="section-head">
        <h2 id="citation-title">
          [{target.n}] {target.documentName}
        </h2>
        {link && (
          <a href={link} onClick={(e) => onLinkClick(e, link)}>
            Open as a page
          </a>
        )}
        <button type="button" onClick={() => ref.current?.close()} autoFocus>
          Close
        </button>
      </div>
      {target.documentId ? (
        <DocumentViewer target={{ documentId: target.documentId, page: target.pageNumber, chunkId: target.chunkId }} />
      ) : (
        <p className="notice">This citation was stored without its document; page {target.pageNumber}.</p>
      )}
    </dialog>
  );
}
