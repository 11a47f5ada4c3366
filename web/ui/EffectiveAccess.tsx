import { useState, type FormEvent } from 'react';
import type { EffectiveAccessDto } from '../lib/types';
import { useSession } from '../session';
import { ErrorText, messageOf, sourceLabel, TIER_LABEL } from './common';
import { NamePicker } from './controls';
import { useTargets } from './targets';

const SOURCE: Record<string, string> = {
  platform: 'their platform role',
  owner: 'they own the project',
  user: 'a grant to them',
  group: 'a grant to one of their groups',
  department: 'a grant to their department',
  public: 'the project is open to everyone',
};

/** Where access comes from: any person's tier on this project and its source, as the server's resolver decides. */
export function EffectiveAccess({ projectId }: { projectId: string }) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [result, setResult] = useState<{ who: string; access: EffectiveAccessDto } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const targets = useTargets('user', name);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const wanted = name.trim().toLowerCase();
    const match =
      targets.options.find((o) => o.label.toLowerCase() === wanted) ?? (targets.options.length === 1 ? targets.options[0] : undefined);
    if (!match) return setError('Pick a person from the suggestions.');
    setError(null);
    try {
      const r = await api.get(`/projects/${encodeURIComponent(projectId)}/access/${encodeURIComponent(match.id)}`);
      setResult({ who: match.label, access: r.access });
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <section className="card form" aria-labelledby="effective-title">
      <h2 id="effective-title">Where access comes from</h2>
      <form className="row wrap" onSubmit={(e) => void submit(e)}>
        <label className="inline grow">
          Person
          <NamePicker listId="effective-people" value={name} onChange={setName} options={targets.options} required />
        </label>
        <button type="submit">Check access</button>
      </form>
      <ErrorText>{error ?? targets.error}</ErrorText>
      {result && (
        <p role="status">
          {result.access.tier
            ? `${result.who}: ${TIER_LABEL[result.access.tier]}, through ${SOURCE[result.access.source ?? ''] ?? sourceLabel(result.access.source ?? '')}.`
            : `${result.who} has no access to this project.`}
        </p>
      )}
    </section>
  );
}
