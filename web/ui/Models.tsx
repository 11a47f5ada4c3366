import { useState } from 'react';
import type { AdminProvider, ProviderTest, UpdateProviderInput } from '../lib/types';
import { useSession } from '../session';
import { ErrorText, Loading, messageOf, useAction, useLoad, useTitle } from './common';
import { ProviderForm, TestResult } from './ProviderForm';

/** Providers for engineers and the superadmin: list, enable/disable, make default, test, add. */
export function Models() {
  const { api, can } = useSession();
  const list = useLoad((s) => api.get('/providers/admin', s), []);
  const action = useAction();
  useTitle('Language models');
  if (!can.manageProviders)
    return (
      <section>
        <h1>Language models</h1>
        <p>Only engineers and the superadmin configure language models.</p>
      </section>
    );

  const patch = (p: AdminProvider, body: UpdateProviderInput) =>
    void action.run(async () => {
      await api.send('PATCH', `/providers/${p.id}`, body);
      list.reload();
    });

  return (
    <div>
      <h1>Language models</h1>
      <p className="muted">Chat uses the project&rsquo;s model if it names one, otherwise the default provider.</p>
      {list.loading && !list.data && <Loading what="providers" />}
      <ErrorText>{list.error ?? action.error}</ErrorText>
      {list.data?.providers.length === 0 && <p>No provider yet.</p>}
      <ul className="provider-list">
        {list.data?.providers.map((p) => (
          <li key={p.id} className="card">
            <div className="section-head">
              <h2>
                {p.name} {p.isDefault && <span className="badge tier-full">Default</span>}{' '}
                {!p.isEnabled && <span className="badge off">Disabled</span>}
              </h2>
              <div className="row">
                <button type="button" onClick={() => patch(p, { isEnabled: !p.isEnabled })} disabled={action.busy}>
                  {p.isEnabled ? 'Disable' : 'Enable'}
                </button>
                {!p.isDefault && (
                  <button type="button" onClick={() => patch(p, { isDefault: true })} disabled={action.busy || !p.isEnabled}>
                    Make default
                  </button>
                )}
              </div>
            </div>
            <p className="muted">
              {p.baseUrl} · key {p.apiKey || 'none'} · models: {p.models.join(', ')}
            </p>
            <ProviderTester provider={p} />
          </li>
        ))}
      </ul>
      <section className="card" aria-labelledby="add-provider">
        <h2 id="add-provider">Add a provider</h2>
        <ProviderForm onSaved={list.reload} firstRun={list.data?.providers.length === 0} />
      </section>
    </div>
  );
}

function ProviderTester({ provider }: { provider: AdminProvider }) {
  const { api } = useSession();
  const [model, setModel] = useState(provider.models[0] ?? '');
  const [result, setResult] = useState<ProviderTest | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setResult(null);
    try {
      setResult(await api.send('POST', `/providers/${provider.id}/test`, { model }));
    } catch (e) {
      setResult({ ok: false, latencyMs: 0, status: 0, error: messageOf(e) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="row tester">
      <label className="inline">
        Model
        <select value={model} onChange={(e) => setModel(e.target.value)}>
          {provider.models.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </label>
      <button type="button" onClick={() => void run()} disabled={busy}>
        {busy ? 'Testing…' : `Test ${provider.name}`}
      </button>
      <TestResult result={result} />
    </div>
  );
}
