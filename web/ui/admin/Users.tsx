import { useState, type FormEvent } from 'react';
import { useSession } from '../../session';
import { ErrorText, Link, Loading, useLoad } from '../common';
import { Choices, choicesOf, namedChoices, Pager, ScrollTable, TextField, useFields, useFilteredPages } from '../controls';
import {
  AdminScreen,
  PlaceFields,
  POSITION_LABEL,
  ROLE_LABEL,
  ruleMessage,
  type Department,
  type OrgPosition,
  type PlatformRole,
} from './org';

const PAGE = 25;

/** People (admins and the superadmin): search, filter, page; add a person with an initial password. */
export function Users() {
  const { api } = useSession();
  const { filters, bind, offset, setOffset } = useFilteredPages({
    search: '',
    platformRole: '',
    orgPosition: '',
    departmentId: '',
    status: '',
  });
  const qs = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  for (const [k, v] of Object.entries(filters)) if (v) qs.set(k, v);
  const users = useLoad((s) => api.get(`/users?${qs}`, s), [qs.toString()]);
  const departments = useLoad((s) => api.get('/departments', s), []);
  const total = users.data?.total ?? 0;

  return (
    <AdminScreen id="users" title="Users">
      <form className="card row wrap filters" role="search" aria-label="Filter users" onSubmit={(e) => e.preventDefault()}>
        <label className="inline grow">
          Search
          <input type="search" {...bind('search')} placeholder="Name or email" />
        </label>
        <Choices label="Role" {...bind('platformRole')} empty="Any" choices={choicesOf(ROLE_LABEL)} />
        <Choices label="Org position" {...bind('orgPosition')} empty="Any" choices={choicesOf(POSITION_LABEL)} />
        <Choices label="Department" {...bind('departmentId')} empty="Any" choices={namedChoices(departments.data?.departments)} />
        <label className="inline">
          Status
          <select {...bind('status')}>
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="inactive">Inactive</option>
          </select>
        </label>
      </form>
      {users.loading && !users.data && <Loading what="people" />}
      <ErrorText>{users.error}</ErrorText>
      <ScrollTable label="People, scrollable" className="grant-table" columns={['Name', 'Role', 'Position', 'Department', 'Status']}>
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
      </ScrollTable>
      <Pager label="Pages of users" offset={offset} page={PAGE} total={total} none="No one matches." onOffset={setOffset} />
      <CreateUser departments={departments.data?.departments ?? []} onCreated={users.reload} />
    </AdminScreen>
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
  const { values: form, setValues: setForm, field } = useFields(empty);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    try {
      const { user } = await api.send('POST', '/users', { ...form, departmentId: form.departmentId || undefined });
      setDone(`${user.name} was added.`);
      setForm(empty);
      onCreated();
    } catch (err) {
      setError(ruleMessage(err));
    }
  };
  return (
    <form className="card form" aria-labelledby="add-user-title" onSubmit={(e) => void submit(e)}>
      <h2 id="add-user-title">Add a person</h2>
      <div className="row wrap">
        <TextField label="Name" required {...field('name')} />
        <TextField label="Email" type="email" required {...field('email')} />
        <TextField label="Password" type="password" required minLength={8} autoComplete="new-password" {...field('password')} />
      </div>
      <div className="row wrap">
        <Choices
          label="Platform role"
          {...field('platformRole')}
          choices={(['none', 'admin', 'engineer'] as const).map((r) => [r, ROLE_LABEL[r]] as const)}
        />
        <PlaceFields field={field} departments={departments} />
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
