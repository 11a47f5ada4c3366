import './workers';
import 'graphiql/style.css';
import '@graphiql/plugin-explorer/style.css';
import './playground.css';
import { explorerPlugin } from '@graphiql/plugin-explorer';
import { useGraphiQL } from '@graphiql/react';
import { GraphiQL, HISTORY_PLUGIN } from 'graphiql';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { currentSession, headersFor, onSession, signIn, signOut, type Session } from './auth';
import { playgroundFetcher } from './fetcher';

const URL_PATH = '/graphql';

const PROJECTS = `# Your projects and who holds which tier on them
query ProjectsWithGrants {
  projects(limit: 20) {
    items {
      id
      name
      grants {
        tier
        user { email }
      }
    }
  }
}
`;

const CHAT = `# Ask a project a question: meta, sources, the answer's text deltas, then done or error
subscription Chat($projectId: ID!, $message: String!) {
  chat(projectId: $projectId, input: { message: $message }) {
    __typename
    ... on ChatMeta { conversationId messageId model }
    ... on ChatSources { chunks { documentName pageNumber snippet } }
    ... on ChatText { delta }
    ... on ChatDone { messageId totalTokens }
    ... on ChatError { type message }
  }
}
`;

const PROGRESS = `# Follow a document's ingestion until it is ready or failed
subscription DocumentProgress($documentId: ID!) {
  documentProgress(documentId: $documentId) {
    documentId
    status
    pagesDone
    pagesTotal
    chunkCount
    error
  }
}
`;

/** Keeps the headers editor's Authorization in step with the session (sign-in, refresh, sign-out). */
function HeaderSync({ session }: { session: Session | null }) {
  const headerEditor = useGraphiQL((s) => s.headerEditor);
  const activeTab = useGraphiQL((s) => s.activeTabIndex);
  useEffect(() => {
    if (!headerEditor) return;
    let current: Record<string, unknown> = {};
    try {
      current = JSON.parse(headerEditor.getValue() || '{}');
    } catch {
      current = {};
    }
    for (const k of Object.keys(current)) if (k.toLowerCase() === 'authorization') delete current[k];
    const next = session ? { ...current, Authorization: `Bearer ${session.accessToken}` } : current;
    const text = JSON.stringify(next, null, 2);
    if (headerEditor.getValue() !== text) headerEditor.setValue(text);
  }, [headerEditor, session, activeTab]);
  return null;
}

function SignIn({ session }: { session: Session | null }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await signIn(URL_PATH, email, password);
      setPassword('');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  if (session) {
    return (
      <div className="docqa-signin">
        <span className="docqa-title">DocQA GraphQL</span>
        <span id="signed-in-as">Signed in as {session.email}</span>
        <button type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </div>
    );
  }
  return (
    <form className="docqa-signin" onSubmit={submit}>
      <span className="docqa-title">DocQA GraphQL</span>
      <input
        name="email"
        type="email"
        placeholder="email"
        autoComplete="username"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        required
      />
      <input
        name="password"
        type="password"
        placeholder="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        required
      />
      <button type="submit" disabled={busy}>
        Sign in
      </button>
      {error && (
        <span className="docqa-error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}

function App() {
  const [session, setSessionState] = useState<Session | null>(currentSession());
  useEffect(() => onSession(setSessionState), []);
  const fetcher = useMemo(() => playgroundFetcher(URL_PATH, () => undefined), []);
  const plugins = useMemo(() => [HISTORY_PLUGIN, explorerPlugin()], []);
  const headers = headersFor(session);
  return (
    <div className="docqa-root">
      <SignIn session={session} />
      <div className="docqa-graphiql">
        <GraphiQL
          fetcher={fetcher}
          plugins={plugins}
          defaultHeaders={headers}
          initialHeaders={headers}
          defaultEditorToolsVisibility="headers"
          defaultTabs={[
            { query: PROJECTS },
            {
              query: CHAT,
              variables: JSON.stringify({ projectId: 'PROJECT_ID', message: 'What does the manual say about the warranty?' }, null, 2),
            },
            { query: PROGRESS, variables: JSON.stringify({ documentId: 'DOCUMENT_ID' }, null, 2) },
          ]}
        >
          <GraphiQL.Footer>
            <HeaderSync session={session} />
          </GraphiQL.Footer>
        </GraphiQL>
      </div>
    </div>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
