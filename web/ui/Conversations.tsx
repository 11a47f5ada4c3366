import { useState, type FormEvent } from 'react';
import { navigate, projectPath } from '../lib/router';
import { useSession } from '../session';
import { ErrorText, Link, useAction, useLoad } from './common';
import { SubmitOrCancel } from './controls';

/** The project's conversations (the caller's own): search by title and text, rename, delete. */
export function Conversations({
  projectId,
  conversationId,
  version,
  onDeleted,
}: {
  projectId: string;
  conversationId: string | null;
  /** Bumped by the Ask screen when an answer ends, so the list (titles, counts) is read again. */
  version: number;
  onDeleted: (id: string) => void;
}) {
  const { api } = useSession();
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const list = `/chat/projects/${encodeURIComponent(projectId)}/conversations` as const;
  const convs = useLoad((s) => api.get(q ? `${list}?search=${encodeURIComponent(q)}` : list, s), [projectId, q, version]);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [title, setTitle] = useState('');
  const action = useAction();
  const base = (id: string) => `/chat/conversations/${encodeURIComponent(id)}` as const;

  const rename = (e: FormEvent, id: string) => {
    e.preventDefault();
    void action.run(async () => {
      await api.send('PATCH', base(id), { title });
      setRenaming(null);
      convs.reload();
    });
  };
  const remove = (id: string) =>
    void action.run(async () => {
      await api.send('DELETE', base(id));
      setDeleting(null);
      if (id === conversationId) navigate(projectPath(projectId));
      onDeleted(id);
      convs.reload();
    });

  return (
    <aside className="conversations" aria-labelledby="convs-title">
      <div className="section-head">
        <h2 id="convs-title">Conversations</h2>
      </div>
      <Link to={projectPath(projectId)} className="button new-conv">
        New conversation
      </Link>
      <form
        role="search"
        className="conv-search"
        onSubmit={(e) => {
          e.preventDefault();
          setQ(search.trim());
        }}
      >
        <label htmlFor="conv-search">Search conversations</label>
        <div className="row">
          <input id="conv-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
          <button type="submit">Search</button>
        </div>
      </form>
      <ErrorText>{convs.error ?? action.error}</ErrorText>
      <ul className="plain-list conv-list">
        {convs.data?.conversations.map((c) => {
          const name = c.title || 'Untitled';
          return (
            <li key={c.id}>
              {renaming === c.id ? (
                <form className="row wrap" onSubmit={(e) => rename(e, c.id)}>
                  <label className="inline grow">
                    Title
                    <input value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={200} autoFocus />
                  </label>
                  <SubmitOrCancel submit="Save title" busy={action.busy} onCancel={() => setRenaming(null)} />
                </form>
              ) : (
                <>
                  <Link to={projectPath(projectId, 'ask', c.id)} current={c.id === conversationId}>
                    {name}
                  </Link>
                  <span className="muted small"> {c.messageCount} messages</span>
                  <span className="conv-tools">
                    <button
                      type="button"
                      className="link-button"
                      aria-label={`Rename ${name}`}
                      onClick={() => {
                        setTitle(c.title);
                        setRenaming(c.id);
                      }}
                    >
                      Rename
                    </button>
                    <button type="button" className="link-button" aria-label={`Delete ${name}`} onClick={() => setDeleting(c.id)}>
                      Delete
                    </button>
                  </span>
                  {deleting === c.id && (
                    <div className="confirm" role="group" aria-label={`Confirm deleting ${name}`}>
                      <p>Delete “{name}” and its messages? This cannot be undone.</p>
                      <button type="button" className="danger" disabled={action.busy} onClick={() => remove(c.id)}>
                        Delete conversation
                      </button>
                      <button type="button" onClick={() => setDeleting(null)}>
                        Keep it
                      </button>
                    </div>
                  )}
                </>
              )}
            </li>
          );
        })}
      </ul>
      {convs.data?.conversations.length === 0 && <p className="muted small">{q ? `No conversation mentions “${q}”.` : 'None yet.'}</p>}
    </aside>
  );
}
