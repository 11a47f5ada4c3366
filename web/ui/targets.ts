import { useEffect, useState } from 'react';
import type { TargetType } from '../lib/types';
import { useSession } from '../session';
import { messageOf } from './common';

export interface TargetOption {
  id: string;
  label: string;
}

/**
 * Grant targets picked by name: people through GET /users?search= (as typed), groups and
 * departments through their lists. These lookups are for admins (and managers); anyone else is told.
 */
export function useTargets(type: TargetType, query: string): { options: TargetOption[]; error: string | null; loading: boolean } {
  const { api } = useSession();
  const [options, setOptions] = useState<TargetOption[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  // a suggestion picked from the list reads "Name (email)": the email is what the search can match
  const q = type === 'user' ? (/\(([^()\s]+@[^()\s]+)\)\s*$/.exec(query)?.[1] ?? query.trim()) : '';

  useEffect(() => {
    const ctl = new AbortController();
    setLoading(true);
    const t = setTimeout(() => {
      const load = async (): Promise<TargetOption[]> => {
        if (type === 'user') {
          const r = await api.get(`/users?limit=20${q ? `&search=${encodeURIComponent(q)}` : ''}`, ctl.signal);
          return r.users.map((u) => ({ id: u.id, label: `${u.name} (${u.email})` }));
        }
        if (type === 'group') {
          const r = await api.get('/groups', ctl.signal);
          return r.groups.map((g) => ({ id: g.id, label: g.department ? `${g.name} (${g.department.name})` : g.name }));
        }
        const r = await api.get('/departments', ctl.signal);
        return r.departments.map((d) => ({ id: d.id, label: d.name }));
      };
      load().then(
        (o) => {
          setOptions(o);
          setError(null);
          setLoading(false);
        },
        (e: unknown) => {
          if (ctl.signal.aborted) return;
          setOptions([]);
          setLoading(false);
          setError(`The list of names could not be read: ${messageOf(e)}`);
        },
      );
    }, 200);
    return () => {
      clearTimeout(t);
      ctl.abort();
    };
  }, [api, type, q]);

  return { options, error, loading };
}
