import { createContext, useContext } from 'react';
import type { Api } from './lib/api';
import type { Capabilities, User } from './lib/types';

export interface Session {
  api: Api;
  user: User;
  /** What the server says the caller may do (GET /auth/capabilities): navigation and controls follow it. */
  can: Capabilities;
  signOut: () => Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in session');
  return s;
}
