import { useEffect, useRef } from 'react';
import type { CitationTarget } from '../lib/chat-turns';
import { useSession } from '../session';
import { ErrorText, Loading, useLoad } from './common';

/** The cited passage (GET /api/chat/chunks/:id/source) in a modal dialog: document, page, paragraph. */
export function SourceDialog({ target, onClose }: { target: CitationTarget; onClose: () => void }) {
  const { api } = useSession();
  const ref = useRef<HTMLDialogElement>(null);
  const web = !!target.url || target.chunkId.startsWith('web-');
  const source = useLoad(
    (s) => (web ? Promise.resolve(null) : api.get(`/chat/chunks/${encodeURIComponent(target.chunkId)}/source`, s)),
    [target.chunkId],
  );
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const s = source.data;

  return (
    <dialog ref={ref} className="source-dialog" aria-labelledby="source-title" onClose={onClose}>
      <div className="section-head">
        <h2 id="source-title">
          [{target.n}] {s?.documentName ?? target.documentName}
        </h2>
        <button type="button" onClick={() => ref.current?.close()} autoFocus>
          Close
        </button>
      </div>
      <p className="meta">
        {web ? <span className="badge">Web result</span> : <span className="badge">Page {s?.pageNumber ?? target.pageNumber}</span>}
        {web && target.url && (
          <a href={target.url} target="_blank" rel="noreferrer noopener">
            Open {hostOf(target.url)}
          </a>
        )}
      </p>
      {web && target.snippet && <blockquote className="passage">{target.snippet}</blockquote>}
      {source.loading && !web && <Loading what="the passage" />}
      <ErrorText>{source.error}</ErrorText>
      {s && <Passage context={s.context} snippet={s.snippet} />}
    </dialog>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the web page';
  }
}

/** The paragraph around the cited chunk, with the chunk itself marked. */
function Passage({ context, snippet }: { context: string; snippet: string }) {
  const at = context.indexOf(snippet);
  const body =
    at < 0 ? (
      <>
        <mark>{snippet}</mark>
        {context && context !== snippet && <span className="muted">{`\n\n${context}`}</span>}
      </>
    ) : (
      <>
        {context.slice(0, at)}
        <mark>{snippet}</mark>
        {context.slice(at + snippet.length)}
      </>
    );
  return <blockquote className="passage">{body}</blockquote>;
}
