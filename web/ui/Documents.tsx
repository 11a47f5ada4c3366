import { useCallback, useEffect, useRef, useState, type DragEvent } from 'react';
import { formatBytes } from '../lib/citations';
import { UploadQueue, type UploadItem } from '../lib/upload-queue';
import type { DocumentInfo, Tier } from '../lib/types';
import { useSession } from '../session';
import { ErrorText, Loading, useLoad } from './common';
import { DocumentRow } from './DocumentRow';

/** The extensions the server reads (KNOWN_EXTENSIONS in src/ingest/detect.ts; a test keeps them equal). */
const ACCEPT =
  '.pdf,.docx,.md,.markdown,.mdown,.txt,.text,.log,.json,.info,.rst,.adoc,.asciidoc,.html,.htm,.xhtml,.xlsx,.ods,.csv,.tsv,.tab,.pptx,.odp,.odt,.epub,.rtf,.eml,.mbox,.msg,.doc,.xls,.ppt,.png,.jpg,.jpeg,.tif,.tiff,.webp,.gif';

/** A project's documents: drop or pick files (an upload queue), live progress, delete and reindex. */
export function Documents({ projectId, tier, onChanged }: { projectId: string; tier: Tier; onChanged: () => void }) {
  const { api } = useSession();
  const canEdit = tier === 'edit' || tier === 'full';
  const list = useLoad((s) => api.get(`/projects/${encodeURIComponent(projectId)}/documents`, s), [projectId]);
  const [docs, setDocs] = useState<DocumentInfo[]>([]);
  const [uploads, setUploads] = useState<UploadItem[]>([]);
  const [dragging, setDragging] = useState(false);
  const queue = useRef<UploadQueue | null>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (list.data) setDocs(list.data.documents);
  }, [list.data]);

  useEffect(() => {
    const q = new UploadQueue(api, projectId, setUploads, (doc) => {
      setDocs((d) => [doc, ...d.filter((x) => x.id !== doc.id)]);
      onChanged();
    });
    queue.current = q;
    return () => q.dispose();
  }, [api, projectId, onChanged]);

  const addFiles = (files: FileList | null) => {
    if (files?.length) queue.current?.add(Array.from(files));
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    addFiles(e.dataTransfer.files);
  };
  // stable, so a row's timers are not reset each time another row changes
  const update = useCallback((doc: DocumentInfo) => setDocs((d) => d.map((x) => (x.id === doc.id ? doc : x))), []);
  const remove = useCallback(
    (id: string) => {
      setDocs((d) => d.filter((x) => x.id !== id));
      onChanged();
    },
    [onChanged],
  );
  const pending = uploads.filter((u) => u.state !== 'done');

  return (
    <section aria-labelledby="docs-title">
      <h2 id="docs-title" className="sr-only">
        Documents
      </h2>
      {canEdit && (
        <div
          className={`dropzone${dragging ? ' over' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <p>
            Drop documents here: PDF (scans too), Word, Excel, PowerPoint, OpenDocument, CSV, EPUB, RTF, e-mail, images, Markdown, HTML or
            text, or
          </p>
          <label className="button primary">
            Choose files…
            <input
              ref={input}
              type="file"
              multiple
              accept={ACCEPT}
              className="sr-only"
              onChange={(e) => {
                addFiles(e.target.files);
                e.target.value = '';
              }}
            />
          </label>
        </div>
      )}
      {pending.length > 0 && (
        <ul className="upload-list" aria-label="Uploads">
          {pending.map((u) => (
            <li key={u.key}>
              <span>{u.name}</span> <span className="muted">{formatBytes(u.size)}</span> <UploadStatus item={u} />
            </li>
          ))}
        </ul>
      )}
      {list.loading && !list.data && <Loading what="documents" />}
      <ErrorText>{list.error}</ErrorText>
      {list.data && docs.length === 0 && <p className="muted">No documents yet.</p>}
      {docs.length > 0 && (
        <table className="doc-table">
          <thead>
            <tr>
              <th scope="col">Document</th>
              <th scope="col">Status</th>
              {canEdit && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {docs.map((d) => (
              <DocumentRow key={d.id} doc={d} canEdit={canEdit} onUpdate={update} onRemoved={remove} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function UploadStatus({ item }: { item: UploadItem }) {
  const [, tick] = useState(0);
  useEffect(() => {
    if (item.state !== 'retrying') return;
    const t = setInterval(() => tick((n) => n + 1), 500);
    return () => clearInterval(t);
  }, [item.state]);
  switch (item.state) {
    case 'waiting':
      return <span className="badge">Waiting</span>;
    case 'uploading':
      return <span className="badge busy">Uploading…</span>;
    case 'retrying': {
      const s = Math.max(0, Math.ceil(((item.retryAt ?? 0) - Date.now()) / 1000));
      return <span className="badge warn">Server busy: trying again in {s} s</span>;
    }
    case 'failed':
      return (
        <span className="error" role="alert">
          Upload failed: {item.error}
        </span>
      );
    case 'done':
      return <span className="badge">Uploaded</span>;
  }
}
