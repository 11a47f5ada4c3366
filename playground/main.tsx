import './workers';
import 'graphiql/style.css';
import '@graphiql/plugin-explorer/style.css';
import './playground.css';
import { explorerPlugin } from '@graphiql/plugin-explorer';
import { useGraphiQL } from '@graphiql/react';
import { GraphiQL, HISTORY_PLUGIN } from 'graphiql';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { currentSession, onSession, signIn, signOut, type Session } from './auth';
import { playgroundFetcher } from './fetcher';
import { headerlessStorage, scrubStoredHeaders } from './storage';

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

/**
 * Takes any Authorization out of the headers editor each time `scrub` changes (after a refresh
 * replaced a typed token that was refused, and at sign-out). The session's own token is never put
 * there: the fetcher adds it from memory.
 */
function HeaderScrub({ scrub }: { scrub: number }) {
  const headerEditor = useGraphiQL((s) => s.headerEditor);
  useEffect(() => {
    if (!headerEditor || scrub === 0) return;
    let current: Record<string, unknown>;
    try {
      current = JSON.parse(headerEditor.getValue() || '{}') as Record<string, unknown>;
    } catch {
      return; // not JSON: the user is mid-edit; leave it
    }
    const kept = Object.fromEntries(Object.entries(current).filter(([k]) => k.toLowerCase() !== 'authorization'));
    if (Object.keys(kept).length !== Object.keys(current).length) headerEditor.setValue(JSON.stringify(kept, null, 2));
  }, [headerEditor, scrub]);
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
        <button type="button" onClick={() => void signOut(URL_PATH)}>
          Sign out
        </button>
      </div>
    );
  }
  return (
    <form className="docqa-signin" aria-label="Sign in" onSubmit={(e) => void submit(e)}>
      <span className="docqa-title">DocQA GraphQL</span>
      <label>
        Email
        <input name="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
      </label>
      <label>
        Password
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
      </label>
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
  const [scrub, setScrub] = useState(0);
  useEffect(
    () =>
      onSession((s) => {
        setSessionState(s);
        if (!s) setScrub((n) => n + 1);
      }),
    [],
  );
  const fetcher = useMemo(() => playgroundFetcher(URL_PATH, () => setScrub((n) => n + 1)), []);
  const plugins = useMemo(() => [HISTORY_PLUGIN, explorerPlugin()], []);
  return (
    <div className="docqa-root">
      <SignIn session={session} />
      <div className="docqa-graphiql">
        <GraphiQL
          fetcher={fetcher}
          plugins={plugins}
          storage={headerlessStorage}
          shouldPersistHeaders={false}
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
            <HeaderScrub scrub={scrub} />
          </GraphiQL.Footer>
        </GraphiQL>
      </div>
    </div>
  );
}

// before GraphiQL reads its storage: history entries an earlier version saved with a token lose it
scrubStoredHeaders();

createRoot(document.getElementById('root')!).render(<App />);
