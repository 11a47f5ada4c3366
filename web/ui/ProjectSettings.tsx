import { useState, type FormEvent } from 'react';
import type { ProjectDetail, ProjectSettingsInput } from '../lib/types';
import { useSession } from '../session';
import { ErrorText, useAction, useLoad } from './common';

/** Instructions, model and topK (`edit` and `full` tier). */
export function ProjectSettings({ project, onSaved }: { project: ProjectDetail; onSaved: () => void }) {
  const { api } = useSession();
  const models = useLoad((s) => api.get('/providers/models', s), []);
  const [instructions, setInstructions] = useState(project.instructions ?? '');
  const [model, setModel] = useState(project.settings.model ?? '');
  const [topK, setTopK] = useState(String(project.settings.topK ?? ''));
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const choices = models.data?.models ?? [];

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    void action.run(async () => {
      // an emptied field goes back to the server's default (null removes the stored key)
      const settings: ProjectSettingsInput = { model: model || null, topK: topK.trim() ? Number(topK) : null };
      await api.send('PATCH', `/projects/${project.id}`, { instructions, settings });
      setSaved(true);
      onSaved();
    });
  };

  return (
    <form className="card form settings" onSubmit={submit} aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <label>
        Instructions for answers
        <textarea rows={5} value={instructions} onChange={(e) => setInstructions(e.target.value)} maxLength={20000} />
      </label>
      <p className="muted small">For example: &ldquo;Answer in German. Name the policy section you rely on.&rdquo;</p>
      <div className="grid2">
        <label>
          Model
          <select value={model} onChange={(e) => setModel(e.target.value)}>
            <option value="">The default provider&rsquo;s model</option>
            {model && !choices.some((c) => c.id === model || c.model === model) && <option value={model}>{model}</option>}
            {choices.map((c) => (
              <option key={c.id} value={c.id}>
                {c.model} ({c.provider})
              </option>
            ))}
          </select>
        </label>
        <label>
          Passages per answer (topK)
          <input type="number" min={1} max={50} value={topK} onChange={(e) => setTopK(e.target.value)} placeholder="server default" />
        </label>
      </div>
      <ErrorText>{action.error}</ErrorText>
      {saved && (
        <p className="ok" role="status">
          Saved.
        </p>
      )}
      <button type="submit" className="primary" disabled={action.busy}>
        Save settings
      </button>
    </form>
  );
}
