import type { ReactNode } from 'react';
import type { Route } from '../lib/router';
import { managesPeople, managesProviders, readsDepartments, useSession } from '../session';
import { Link } from './common';

export function Shell({ route, children }: { route: Route; children: ReactNode }) {
  const { user, signOut } = useSession();
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true" />
          DocQA
        </Link>
        <nav aria-label="Main">
          <Link to="/" current={route.name === 'home'}>
            Projects
          </Link>
          {managesPeople(user) && (
            <Link to="/users" current={route.name === 'users' || route.name === 'user'}>
              Users
            </Link>
          )}
          {readsDepartments(user) && (
            <>
              <Link to="/departments" current={route.name === 'departments'}>
                Departments
              </Link>
              <Link to="/groups" current={route.name === 'groups'}>
                Groups
              </Link>
            </>
          )}
          {managesPeople(user) && (
            <Link to="/audit" current={route.name === 'audit'}>
              Audit log
            </Link>
          )}
          {managesProviders(user) && (
            <Link to="/models" current={route.name === 'models'}>
              Language models
            </Link>
          )}
        </nav>
        <div className="who">
          <span className="muted" title={user.email}>
            {user.name}
          </span>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
