import { createContext, useContext } from 'react';
import type { Api } from './lib/api';
import type { User } from './lib/types';

export interface Session {
  api: Api;
  user: User;
  signOut: () => Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in session');
  return s;
}

/** Engineers and the superadmin configure language-model providers. */
export const managesProviders = (u: User) => u.platformRole === 'engineer' || u.platformRole === 'superadmin';
/** Admins and the superadmin create projects. */
export const createsProjects = (u: User) => u.platformRole === 'admin' || u.platformRole === 'superadmin';
/** Admins and the superadmin run people and the audit log. */
export const managesPeople = createsProjects;
/** Department and group pages: admins, the CEO and department managers (the server scopes what each reads). */
export const readsDepartments = (u: User) =>
  createsProjects(u) || u.orgPosition === 'ceo' || (u.orgPosition === 'manager' && !!u.departmentId);
