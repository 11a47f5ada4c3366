import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Api } from '../lib/api';
import { disconnectProgress } from '../lib/progress';
import { navigate, useRoute } from '../lib/router';
import type { Capabilities, User } from '../lib/types';
import { SessionContext, type Session } from '../session';
import { DocumentPage } from './DocumentPage';
import { Home } from './Home';
import { Models } from './Models';
import { Shell } from './Shell';
import { SignIn } from './SignIn';
import { Loading } from './common';

// a project's screens (with the Markdown renderer) and the organisation's screens are loaded on demand,
// so the first screen's script stays small
const ProjectPage = lazy(() => import('./ProjectPage').then((m) => ({ default: m.ProjectPage })));
const Users = lazy(() => import('./admin/Users').then((m) => ({ default: m.Users })));
const UserPage = lazy(() => import('./admin/UserPage').then((m) => ({ default: m.UserPage })));
const Departments = lazy(() => import('./admin/Departments').then((m) => ({ default: m.Departments })));
const Groups = lazy(() => import('./admin/Groups').then((m) => ({ default: m.Groups })));
const AuditLog = lazy(() => import('./admin/AuditLog').then((m) => ({ default: m.AuditLog })));

type State = { phase: 'starting' } | { phase: 'signed-out'; notice?: string } | { phase: 'signed-in'; user: User; can: Capabilities };

export function App() {
  const api = useMemo(() => new Api(), []);
  const [state, setState] = useState<State>({ phase: 'starting' });
  const route = useRoute();

  useEffect(() => {
    api.onExpired = () => {
      disconnectProgress();
      setState({ phase: 'signed-out', notice: 'Your session has ended. Please sign in again.' });
    };
    api.resume().then(
      (s) => setState(s ? { phase: 'signed-in', ...s } : { phase: 'signed-out' }),
      () => setState({ phase: 'signed-out' }),
    );
  }, [api]);

  if (state.phase === 'starting')
    return (
      <p className="boot" role="status">
        Loading DocQA…
      </p>
    );
  if (state.phase === 'signed-out')
    return (
      <SignIn
        api={api}
        notice={state.notice}
        onSignedIn={(user) => {
          api.capabilities().then(
            (can) => {
              if (location.pathname === '/sign-in') navigate('/', true);
              setState({ phase: 'signed-in', user, can });
            },
            () => setState({ phase: 'signed-out', notice: 'You were signed in, but the server did not answer. Please try again.' }),
          );
        }}
      />
    );

  const session: Session = {
    api,
    user: state.user,
    can: state.can,
    signOut: async () => {
      disconnectProgress();
      try {
        await api.signOut();
      } finally {
        navigate('/', true);
        setState({ phase: 'signed-out', notice: 'You are signed out.' });
      }
    },
  };
  return (
    <SessionContext.Provider value={session}>
      <Shell route={route}>
        {route.name === 'home' && <Home />}
        {route.name === 'models' && <Models />}
        <Suspense fallback={<Loading what="the page" />}>
          {route.name === 'project' && <ProjectPage key={route.projectId} route={route} />}
          {route.name === 'document' && <DocumentPage key={route.documentId} route={route} />}
          {route.name === 'users' && <Users />}
          {route.name === 'user' && <UserPage key={route.userId} userId={route.userId} />}
          {route.name === 'departments' && <Departments />}
          {route.name === 'groups' && <Groups />}
          {route.name === 'audit' && <AuditLog />}
        </Suspense>
        {route.name === 'not-found' && (
          <section>
            <h1>Not found</h1>
            <p>There is no page here.</p>
          </section>
        )}
      </Shell>
    </SessionContext.Provider>
  );
}
