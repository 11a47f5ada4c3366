import { useState, type FormEvent } from 'react';
import type { Grant, TargetType, Tier } from '../lib/types';
import { useSession } from '../session';
import { ErrorText, Loading, TIER_LABEL, useAction, useLoad } from './common';
import { Choices, choicesOf, NamePicker } from './controls';
import { useTargets } from './targets';

const TYPE_LABEL: Record<TargetType, string> = { user: 'Person', group: 'Group', department: 'Department' };

function targetOf(g: Grant): { type: TargetType; label: string } {
  if (g.user) return { type: 'user', label: `${g.user.name} (${g.user.email})` };
  if (g.group) return { type: 'group', label: g.group.department ? `${g.group.name} (${g.group.department.name})` : g.group.name };
  return { type: 'department', label: g.department?.name ?? 'Department' };
}

/** Who has access (`full` tier): add, change and remove grants for a person, group or department. */
export function Grants({ projectId }: { projectId: string }) {
  const { api } = useSession();
  const base = `/projects/${encodeURIComponent(projectId)}/grants` as const;
  const grants = useLoad((s) => api.get(base, s), [projectId]);
  const action = useAction();

  const upsert = (targetType: TargetType, targetId: string, tier: Tier) =>
    action.run(async () => {
      await api.send('POST', base, { targetType, targetId, tier });
      grants.reload();
    });
  const remove = (g: Grant) =>
    void action.run(async () => {
      await api.send('DELETE', `${base}/${g.id}`);
      grants.reload();
    });

  return (
    <section className="grants" aria-labelledby="grants-title">
      <h2 id="grants-title">Who has access</h2>
      {grants.loading && !grants.data && <Loading what="access" />}
      <ErrorText>{grants.error ?? action.error}</ErrorText>
      {grants.data && grants.data.grants.length === 0 && <p className="muted">Nobody has been given access yet.</p>}
      {grants.data && grants.data.grants.length > 0 && (
        <table className="grant-table">
          <thead>
            <tr>
              <th scope="col">Who</th>
              <th scope="col">Access</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {grants.data.grants.map((g) => {
              const t = targetOf(g);
              const targetId = g.userId ?? g.groupId ?? g.departmentId ?? '';
              return (
                <tr key={g.id}>
                  <td>
                    <span className="badge">{TYPE_LABEL[t.type]}</span> {t.label}
                  </td>
                  <td>
                    <Choices
                      aria-label={`Access for ${t.label}`}
                      value={g.tier}
                      disabled={action.busy}
                      onChange={(e) => void upsert(t.type, targetId, e.target.value as Tier)}
                      choices={choicesOf(TIER_LABEL)}
                    />
                  </td>
                  <td>
                    <button type="button" onClick={() => remove(g)} disabled={action.busy} aria-label={`Remove access for ${t.label}`}>
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <AddGrant onAdd={upsert} busy={action.busy} />
    </section>
  );
}

function AddGrant({ onAdd, busy }: { onAdd: (type: TargetType, id: string, tier: Tier) => Promise<void>; busy: boolean }) {
  const [type, setType] = useState<TargetType>('user');
  const [name, setName] = useState('');
  const [tier, setTier] = useState<Tier>('use');
  const [error, setError] = useState<string | null>(null);
  const targets = useTargets(type, name);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const wanted = name.trim().toLowerCase();
    const match =
      targets.options.find((o) => o.label.toLowerCase() === wanted) ?? (targets.options.length === 1 ? targets.options[0] : undefined);
    if (!match && targets.loading) return setError('Still looking up names: try again in a moment.');
    if (!match) return setError(`Pick a ${TYPE_LABEL[type].toLowerCase()} from the suggestions: none is called “${name.trim()}”.`);
    setError(null);
    void onAdd(type, match.id, tier).then(() => setName(''));
  };

  return (
    <form className="card form add-grant" onSubmit={submit} aria-labelledby="add-grant-title">
      <h3 id="add-grant-title">Give access</h3>
      <div className="row wrap">
        <Choices
          label="To a"
          value={type}
          onChange={(e) => setType(e.target.value as TargetType)}
          choices={choicesOf(TYPE_LABEL).map(([v, l]) => [v, l.toLowerCase()] as const)}
        />
        <label className="inline grow">
          Name
          <NamePicker listId="grant-targets" value={name} onChange={setName} options={targets.options} required />
        </label>
        <Choices label="Access" value={tier} onChange={(e) => setTier(e.target.value as Tier)} choices={choicesOf(TIER_LABEL)} />
        <button type="submit" className="primary" disabled={busy}>
          Give access
        </button>
      </div>
      <ErrorText>{error ?? targets.error}</ErrorText>
    </form>
  );
}
