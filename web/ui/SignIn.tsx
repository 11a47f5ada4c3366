import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Api } from '../lib/api';
import type { LoginOptionsDto, User } from '../lib/types';
import { ErrorText, messageOf } from './common';

export function SignIn({ api, notice, onSignedIn }: { api: Api; notice?: string; onSignedIn: (u: User) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const [options, setOptions] = useState<LoginOptionsDto | null>(null);
  useEffect(() => {
    document.title = 'Sign in · DocQA';
    emailRef.current?.focus();
    fetch('/api/auth/sso')
      .then((r) => (r.ok ? r.json() : null))
      .then((o: typeof options) => setOptions(o))
      .catch(() => undefined);
    // back from the identity provider (OIDC_REDIRECT_URL points here): its answer becomes a session
    if (new URLSearchParams(location.search).has('state')) {
      setBusy(true);
      const callbackUrl = location.href;
      history.replaceState(null, '', '/');
      api.finishSso(callbackUrl).then(onSignedIn, (err: unknown) => {
        setError(messageOf(err));
        setBusy(false);
      });
    }
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await api.signIn(email.trim(), password));
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <form onSubmit={(e) => void submit(e)} className="card" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">
          <span className="brand-mark" aria-hidden="true" />
          Sign in to DocQA
        </h1>
        <p className="muted">Ask questions about your organisation&rsquo;s documents and open the pages the answers come from.</p>
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        {options?.oidc && (
          <a className="button primary" href="/api/auth/oidc/start">
            Sign in with {options.oidc.name}
          </a>
        )}
        {options?.passwordLogin === false && <p className="muted small">Password sign-in is for the administrator only.</p>}
        <label>
          Email
          <input
            ref={emailRef}
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <ErrorText>{error}</ErrorText>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted small">
          On a new server, the first administrator&rsquo;s email and password are printed where the server was started.
        </p>
      </form>
    </main>
  );
}
