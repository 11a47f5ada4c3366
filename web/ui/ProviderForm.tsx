import { useState, type FormEvent } from 'react';
import type { ProviderTest } from '../lib/types';
import { useSession } from '../session';
import { ErrorText, messageOf, useAction } from './common';

/** A slug from a name: lowercase kebab-case, as the API requires. */
export function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'provider'
  );
}

export function TestResult({ result }: { result: ProviderTest | null }) {
  if (!result) return null;
  return result.ok ? (
    <p className="ok" role="status">
      It answered in {result.latencyMs} ms: &ldquo;{result.sample}&rdquo;
    </p>
  ) : (
    <p className="error" role="alert">
      The test failed{result.status ? ` (HTTP ${result.status})` : ''}: {result.error}
    </p>
  );
}

/** Adds an OpenAI-compatible provider; "Test" tries the typed configuration before it is saved. */
export function ProviderForm({ onSaved, firstRun = false }: { onSaved: () => void; firstRun?: boolean }) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [models, setModels] = useState('');
  const [isDefault, setDefault] = useState(firstRun);
  const [test, setTest] = useState<ProviderTest | null>(null);
  const [testing, setTesting] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const action = useAction();
  const modelList = models
    .split(/[,\n]/)
    .map((m) => m.trim())
    .filter(Boolean);

  const runTest = async () => {
    setTesting(true);
    setTest(null);
    try {
      setTest(await api.send('POST', '/providers/draft/test', { baseUrl: baseUrl.trim(), apiKey, model: modelList[0] ?? '' }));
    } catch (e) {
      setTest({ ok: false, latencyMs: 0, status: 0, error: messageOf(e) });
    } finally {
      setTesting(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await api.send('POST', '/providers', {
        name: name.trim(),
        slug: slugify(name),
        type: 'custom',
        baseUrl: baseUrl.trim(),
        apiKey,
        models: modelList,
        isDefault,
      });
      setSaved(name.trim());
      setName('');
      setBaseUrl('');
      setApiKey('');
      setModels('');
      setTest(null);
      onSaved();
    });
  };

  return (
    <form className="form" onSubmit={submit} aria-label="Add a provider">
      <div className="grid2">
        <label>
          Name
          <input required value={name} onChange={(e) => setName(e.target.value)} placeholder="Local Ollama" maxLength={100} />
        </label>
        <label>
          Address (base URL)
          <input required type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="http://localhost:11434/v1" />
        </label>
        <label>
          API key <span className="muted">(if it needs one)</span>
          <input type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
        </label>
        <label>
          Models <span className="muted">(comma-separated; the first is tested)</span>
          <input required value={models} onChange={(e) => setModels(e.target.value)} placeholder="llama3.1:8b" />
        </label>
      </div>
      <label className="check">
        <input type="checkbox" checked={isDefault} onChange={(e) => setDefault(e.target.checked)} />
        Use it by default for every project
      </label>
      <TestResult result={test} />
      <ErrorText>{action.error}</ErrorText>
      {saved && (
        <p className="ok" role="status">
          {saved} was added.
        </p>
      )}
      <div className="row">
        <button type="button" onClick={() => void runTest()} disabled={testing || !baseUrl || !modelList.length}>
          {testing ? 'Testing…' : 'Test'}
        </button>
        <button type="submit" className="primary" disabled={action.busy}>
          Add provider
        </button>
      </div>
    </form>
  );
}
