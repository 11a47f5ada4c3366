import type { ReactNode } from 'react';
import type { Route } from '../lib/router';
import { reaches } from '../lib/types';
import { useSession } from '../session';
import { Link } from './common';

export function Shell({ route, children }: { route: Route; children: ReactNode }) {
  const { user, can, signOut } = useSession();
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
          {can.manageUsers && (
            <Link to="/users" current={route.name === 'users' || route.name === 'user'}>
              Users
            </Link>
          )}
          {reaches(can.departments.read) && (
            <Link to="/departments" current={route.name === 'departments'}>
              Departments
            </Link>
          )}
          {reaches(can.groups.read) && (
            <Link to="/groups" current={route.name === 'groups'}>
              Groups
            </Link>
          )}
          {can.readAuditLog && (
            <Link to="/audit" current={route.name === 'audit'}>
              Audit log
            </Link>
          )}
          {can.manageProviders && (
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
