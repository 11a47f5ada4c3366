import { memo, useEffect, useState } from 'react';
import { formatBytes } from '../lib/citations';
import { watchProgress } from '../lib/progress';
import type { DocumentInfo } from '../lib/types';
import { useSession } from '../session';
import { useAction } from './common';

const POLL_MS = 1500;

/** A document's row: live progress while it is read and embedded, its status or error, its actions. */
export const DocumentRow = memo(function DocumentRow({
  doc,
  canEdit,
  onUpdate,
  onRemoved,
}: {
  doc: DocumentInfo;
  canEdit: boolean;
  onUpdate: (d: DocumentInfo) => void;
  onRemoved: (id: string) => void;
}) {
  const { api } = useSession();
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const reading = doc.status === 'queued' || doc.status === 'processing';
  const embedding = doc.status === 'ready' && doc.embeddings !== null && doc.embeddings.chunksEmbedded < doc.embeddings.chunksTotal;

  // pages: the progress stream; at its end (or if it fails) the document is read again for its final
  // state and its embeddings (updates after this row stopped reading are still the document's news)
  useEffect(() => {
    if (!reading) return;
    let finished = false;
    const reread = () =>
      void api.get(`/documents/${doc.id}`).then(
        (r) => onUpdate(r.document),
        () => undefined,
      );
    const stop = watchProgress(
      api,
      doc.id,
      (e) => {
        onUpdate({
          ...doc,
          status: e.status,
          progress: { pagesDone: e.pagesDone, pagesTotal: e.pagesTotal },
          pageCount: e.pageCount,
          chunkCount: e.chunkCount,
          error: e.error,
        });
        if ((e.status === 'ready' || e.status === 'failed') && !finished) {
          finished = true;
          reread();
        }
      },
      (err) => {
        if (finished) return;
        finished = true;
        if (err) setTimeout(reread, POLL_MS);
        else reread();
      },
    );
    return stop;
    // one subscription per reading phase, not per event
  }, [doc.id, reading]);

  // embeddings: the document is read again until every chunk has its vector
  useEffect(() => {
    if (!embedding) return;
    const t = setTimeout(() => {
      void api.get(`/documents/${doc.id}`).then(
        (r) => onUpdate(r.document),
        () => undefined,
      );
    }, POLL_MS);
    return () => clearTimeout(t);
  }, [api, doc, embedding, onUpdate]);

  const reindex = () =>
    void action.run(async () => {
      const r = await api.send('POST', `/documents/${doc.id}/reindex`);
      onUpdate(r.document);
    });
  const del = () =>
    void action.run(async () => {
      await api.send('DELETE', `/documents/${doc.id}`);
      onRemoved(doc.id);
    });

  return (
    <tr>
      <td>
        <span className="doc-name">{doc.name}</span>
        <span className="muted small">
          {' '}
          {doc.format && `${FORMAT_LABELS[doc.format] ?? doc.format.toUpperCase()} · `}
          {formatBytes(doc.size)}
          {doc.status === 'ready' && doc.pageCount > 0 && ` · ${countOf(doc.pageCount, unitOf(doc.format))}`}
        </span>
        {doc.status === 'ready' && <Extraction doc={doc} />}
      </td>
      <td>
        <Status doc={doc} embedding={embedding} />
        {action.error && (
          <p className="error" role="alert">
            {action.error}
          </p>
        )}
      </td>
      {canEdit && (
        <td className="actions">
          {confirming ? (
            <>
              <button type="button" className="danger" onClick={del} disabled={action.busy} aria-label={`Confirm deleting ${doc.name}`}>
                Delete for good
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </>
          ) : (
            <>
              <button type="button" onClick={reindex} disabled={action.busy || reading} aria-label={`Reindex ${doc.name}`}>
                Reindex
              </button>
              <button type="button" onClick={() => setConfirming(true)} aria-label={`Delete ${doc.name}`}>
                Delete
              </button>
            </>
          )}
        </td>
      )}
    </tr>
  );
});

/** Format names as people know them (others: the format's code in capitals). */
const FORMAT_LABELS: Record<string, string> = {
  markdown: 'Markdown',
  text: 'Text',
  html: 'HTML',
  eml: 'E-mail',
  mbox: 'Mailbox',
  msg: 'Outlook message',
  ole2: 'Office 97–2003',
  jpeg: 'JPEG',
};

/** What a format's "page" is: a spreadsheet's sheet, a deck's slide, a mailbox's message. */
function unitOf(format: string | null): string {
  if (format === 'xlsx' || format === 'ods' || format === 'csv' || format === 'tsv') return 'sheet';
  if (format === 'pptx' || format === 'odp') return 'slide';
  return 'page';
}

const countOf = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** Which pages were read by OCR, and how confidently (OCR'd documents only). */
function Extraction({ doc }: { doc: DocumentInfo }) {
  const x = doc.extraction;
  if (!x || !x.ocrPages) return null;
  const ocrRuns = x.pages.filter((r) => r.method === 'ocr');
  const detail = ocrRuns.map((r) => `page ${r.from}: ${r.confidence ?? 0}%`).join(', ');
  const label = x.method === 'ocr' ? 'Read by OCR' : `${countOf(x.ocrPages, 'page')} read by OCR`;
  return (
    <span className="muted small doc-ocr" title={detail}>
      {' '}
      · {label}, {Math.round(x.ocrConfidence ?? 0)}% confidence
    </span>
  );
}

function Status({ doc, embedding }: { doc: DocumentInfo; embedding: boolean }) {
  const { pagesDone, pagesTotal } = doc.progress;
  switch (doc.status) {
    case 'queued':
      return <span className="badge">Queued</span>;
    case 'processing':
      return (
        <span className="progress-line">
          <span className="badge busy">Reading</span>
          {pagesTotal > 0 ? (
            <>
              <progress max={pagesTotal} value={pagesDone} aria-label={`Pages read of ${doc.name}`} />
              <span className="small">
                {pagesDone} of {pagesTotal} pages
              </span>
            </>
          ) : (
            <span className="small">starting…</span>
          )}
        </span>
      );
    case 'failed':
      return (
        <span className="doc-failed">
          <span className="badge fail">Failed</span> <span className="error-text">{doc.error ?? 'The document could not be read.'}</span>
        </span>
      );
    case 'ready':
      if (embedding && doc.embeddings)
        return (
          <span className="progress-line">
            <span className="badge busy">Embedding</span>
            <progress
              max={doc.embeddings.chunksTotal}
              value={doc.embeddings.chunksEmbedded}
              aria-label={`Passages embedded of ${doc.name}`}
            />
            <span className="small">
              {doc.embeddings.chunksEmbedded} of {doc.embeddings.chunksTotal} passages
            </span>
          </span>
        );
      return <span className="badge ok-badge">Ready</span>;
  }
}
