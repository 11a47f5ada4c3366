/** Client-side routes on the History API; the server answers these paths with the page too. */
import { useEffect, useState } from 'react';

export type Route =
  | { name: 'home' }
  | { name: 'models' }
  | { name: 'project'; projectId: string; tab: ProjectTab; conversationId: string | null }
  | { name: 'users' }
  | { name: 'user'; userId: string }
  | { name: 'departments' }
  | { name: 'groups' }
  | { name: 'audit' }
  | { name: 'document'; projectId: string; documentId: string; page: number | null; chunkId: string | null }
  | { name: 'not-found' };

export type ProjectTab = 'ask' | 'documents' | 'settings' | 'access' | 'feedback';
const TABS: ProjectTab[] = ['ask', 'documents', 'settings', 'access', 'feedback'];

export function parseRoute(pathname: string, search: string): Route {
  const parts = pathname.split('/').filter(Boolean);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'sign-in')) return { name: 'home' };
  if (parts.length === 1 && parts[0] === 'models') return { name: 'models' };
  if (parts.length === 1 && (['users', 'departments', 'groups', 'audit'] as const).includes(parts[0] as 'users'))
    return { name: parts[0] as 'users' | 'departments' | 'groups' | 'audit' };
  if (parts.length === 2 && parts[0] === 'users') return { name: 'user', userId: parts[1] };
  if (parts[0] === 'projects' && parts[1] && parts[2] === 'documents' && parts[3] && parts.length === 4) {
    const q = new URLSearchParams(search);
    const page = Number(q.get('page'));
    return {
      name: 'document',
      projectId: parts[1],
      documentId: parts[3],
      page: Number.isInteger(page) && page > 0 ? page : null,
      chunkId: q.get('chunk'),
    };
  }
  if (parts[0] === 'projects' && parts[1] && parts.length <= 3) {
    const tab = (parts[2] ?? 'ask') as ProjectTab;
    if (!TABS.includes(tab)) return { name: 'not-found' };
    return { name: 'project', projectId: parts[1], tab, conversationId: new URLSearchParams(search).get('c') };
  }
  return { name: 'not-found' };
}

export function projectPath(projectId: string, tab: ProjectTab = 'ask', conversationId?: string | null): string {
  const base = `/projects/${encodeURIComponent(projectId)}${tab === 'ask' ? '' : `/${tab}`}`;
  return conversationId ? `${base}?c=${encodeURIComponent(conversationId)}` : base;
}

/** A document opened at a page, with a cited chunk marked: the link a citation can be shared by. */
export function documentPath(projectId: string, documentId: string, page?: number | null, chunkId?: string | null): string {
  const q = new URLSearchParams();
  if (page) q.set('page', String(page));
  if (chunkId) q.set('chunk', chunkId);
  const query = q.toString();
  return `/projects/${encodeURIComponent(projectId)}/documents/${encodeURIComponent(documentId)}${query ? `?${query}` : ''}`;
}

const listeners = new Set<() => void>();

export function navigate(to: string, replace = false): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const l of listeners) l();
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname, location.search));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname, location.search));
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** A plain left click on an in-app link navigates without reloading the page. */
export function onLinkClick(
  e: { button: number; metaKey: boolean; ctrlKey: boolean; shiftKey: boolean; altKey: boolean; preventDefault(): void },
  to: string,
): void {
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(to);
}
