import { useEffect, useState, type FormEvent } from 'react';
import { useSession } from '../../session';
import { ErrorText, Link, Loading, useLoad } from '../common';
import {
  POSITION_LABEL,
  ROLE_LABEL,
  ruleMessage,
  type Department,
  type ListedPerson,
  type OrgPosition,
  type Person,
  type PlatformRole,
} from './org';

const PAGE = 25;

/** People (admins and the superadmin): search, filter, page; add a person with an initial password. */
export function Users() {
  const { api } = useSession();
  const [filters, setFilters] = useState({ search: '', platformRole: '', orgPosition: '', departmentId: '', status: '' });
  const [offset, setOffset] = useState(0);
  const qs = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  for (const [k, v] of Object.entries(filters)) if (v) qs.set(k, v);
  const users = useLoad((s) => api.get<{ users: ListedPerson[]; total: number }>(`/users?${qs}`, s), [qs.toString()]);
  const departments = useLoad((s) => api.get<{ departments: Department[] }>('/departments', s), []);
  useEffect(() => {
    document.title = 'Users · DocQA';
  }, []);
  const set = (k: keyof typeof filters, v: string) => {
    setFilters((f) => ({ ...f, [k]: v }));
    setOffset(0);
  };
  const total = users.data?.total ?? 0;

  return (
    <section aria-labelledby="users-title" className="admin">
      <h1 id="users-title">Users</h1>
      <form className="card row wrap filters" role="search" aria-label="Filter users" onSubmit={(e) => e.preventDefault()}>
        <label className="inline grow">
          Search
          <input type="search" value={filters.search} onChange={(e) => set('search', e.target.value)} placeholder="Name or email" />
        </label>
        <label className="inline">
          Role
          <select value={filters.platformRole} onChange={(e) => set('platformRole', e.target.value)}>
            <option value="">Any</option>
            {Object.entries(ROLE_LABEL).map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          Org position
          <select value={filters.orgPosition} onChange={(e) => set('orgPosition', e.target.value)}>
            <option value="">Any</option>
            {Object.entries(POSITION_LABEL).map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          Department
          <select value={filters.departmentId} onChange={(e) => set('departmentId', e.target.value)}>
            <option value="">Any</option>
            {departments.data?.departments.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          Status
          <select value={filters.status} onChange={(e) => set('status', e.target.value)}>
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="inactive">Inactive</option>
          </select>
        </label>
      </form>
      {users.loading && !users.data && <Loading what="people" />}
      <ErrorText>{users.error}</ErrorText>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="People, scrollable">
        <table className="grant-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Position</th>
              <th scope="col">Department</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {users.data?.users.map((u) => (
              <tr key={u.id}>
                <td>
                  <Link to={`/users/${u.id}`}>{u.name}</Link>
                  <div className="muted small">{u.email}</div>
                </td>
                <td>{ROLE_LABEL[u.platformRole]}</td>
                <td>{POSITION_LABEL[u.orgPosition]}</td>
                <td>{u.department?.name ?? '—'}</td>
                <td>{u.status === 'active' ? 'Active' : 'Inactive'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="row pager" aria-label="Pages of users">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Previous page
        </button>
        <span className="muted" role="status">
          {total === 0 ? 'No one matches.' : `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}`}
        </span>
        <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
          Next page
        </button>
      </nav>
      <CreateUser departments={departments.data?.departments ?? []} onCreated={users.reload} />
    </section>
  );
}

function CreateUser({ departments, onCreated }: { departments: Department[]; onCreated: () => void }) {
  const { api } = useSession();
  const empty = {
    name: '',
    email: '',
    password: '',
    platformRole: 'none' as PlatformRole,
    orgPosition: 'member' as OrgPosition,
    departmentId: '',
  };
  const [form, setForm] = useState(empty);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    try {
      const { user } = await api.send<{ user: Person }>('POST', '/users', { ...form, departmentId: form.departmentId || undefined });
      setDone(`${user.name} was added.`);
      setForm(empty);
      onCreated();
    } catch (err) {
      setError(ruleMessage(err));
    }
  };
  const field = (k: keyof typeof empty) => ({
    value: form[k],
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value }),
  });
  return (
    <form className="card form" aria-labelledby="add-user-title" onSubmit={(e) => void submit(e)}>
      <h2 id="add-user-title">Add a person</h2>
      <div className="row wrap">
        <label className="inline grow">
          Name
          <input required {...field('name')} />
        </label>
        <label className="inline grow">
          Email
          <input type="email" required {...field('email')} />
        </label>
        <label className="inline grow">
          Password
          <input type="password" required minLength={8} autoComplete="new-password" {...field('password')} />
        </label>
      </div>
      <div className="row wrap">
        <label className="inline">
          Platform role
          <select {...field('platformRole')}>
            {(['none', 'admin', 'engineer'] as const).map((r) => (
              <option key={r} value={r}>
                {ROLE_LABEL[r]}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          Org position
          <select {...field('orgPosition')}>
            {Object.entries(POSITION_LABEL).map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          Department
          <select {...field('departmentId')}>
            <option value="">None</option>
            {departments.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary">
          Add person
        </button>
      </div>
      <p role="status" className="muted">
        {done}
      </p>
      <ErrorText>{error}</ErrorText>
    </form>
  );
}
