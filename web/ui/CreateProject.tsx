import { useState, type FormEvent } from 'react';
import { navigate, projectPath } from '../lib/router';
import { useSession } from '../session';
import { ErrorText, useAction } from './common';
import { SubmitOrCancel } from './controls';

export function CreateProject() {
  const { api } = useSession();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [isPrivate, setPrivate] = useState(true);
  const action = useAction();

  if (!open)
    return (
      <button type="button" className="primary" onClick={() => setOpen(true)}>
        New project
      </button>
    );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const { project } = await api.send('POST', '/projects', {
        name: name.trim(),
        description: description.trim() || undefined,
        isPrivate,
      });
      navigate(projectPath(project.id, 'documents'));
    });
  };

  return (
    <form className="card form" onSubmit={submit} aria-labelledby="new-project">
      <h2 id="new-project">New project</h2>
      <label>
        Name
        <input required autoFocus value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
      </label>
      <label>
        Description <span className="muted">(optional)</span>
        <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={2000} />
      </label>
      <label className="check">
        <input type="checkbox" checked={!isPrivate} onChange={(e) => setPrivate(!e.target.checked)} />
        Everyone signed in may ask questions in it
      </label>
      <ErrorText>{action.error}</ErrorText>
      <div className="row">
        <SubmitOrCancel submit="Create project" busy={action.busy} onCancel={() => setOpen(false)} />
      </div>
    </form>
  );
}
