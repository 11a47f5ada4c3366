import { useEffect, useState, type FormEvent } from 'react';
import { useSession } from '../../session';
import { ErrorText, Loading, useLoad } from '../common';
import { AddMember } from './Departments';
import { ruleMessage, type Department, type Group } from './org';

/** Groups (within a department): create, rename, delete; add and remove members. The server decides who may. */
export function Groups() {
  const { api } = useSession();
  const list = useLoad((s) => api.get<{ groups: Group[] }>('/groups', s), []);
  const departments = useLoad((s) => api.get<{ departments: Department[] }>('/departments', s), []);
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => {
    document.title = 'Groups · DocQA';
  }, []);
  return (
    <section className="admin" aria-labelledby="groups-title">
      <h1 id="groups-title">Groups</h1>
      {list.loading && !list.data && <Loading what="groups" />}
      <ErrorText>{list.error}</ErrorText>
      {list.data?.groups.length === 0 && <p className="muted">No groups yet.</p>}
      <ul className="plain-list">
        {list.data?.groups.map((g) => (
          <li key={g.id} className="card">
            <div className="row wrap">
              <h2 className="grow">
                {g.name} <span className="muted small">in {g.department?.name ?? 'a department'}</span>
              </h2>
              <span className="muted small">{g.memberCount} members</span>
              <button type="button" aria-expanded={open === g.id} onClick={() => setOpen(open === g.id ? null : g.id)}>
                {open === g.id ? `Close ${g.name}` : `Manage ${g.name}`}
              </button>
            </div>
            {open === g.id && <GroupDetail group={g} onChanged={list.reload} />}
          </li>
        ))}
      </ul>
      {departments.data && departments.data.departments.length > 0 && (
        <CreateGroup departments={departments.data.departments} onCreated={list.reload} />
      )}
    </section>
  );
}

function CreateGroup({ departments, onCreated }: { departments: Department[]; onCreated: () => void }) {
  const { api } = useSession();
  const [f, setF] = useState({ name: '', departmentId: departments[0].id });
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await api.send('POST', '/groups', f);
      setF({ ...f, name: '' });
      onCreated();
    } catch (err) {
      setError(ruleMessage(err));
    }
  };
  return (
    <form className="card form" aria-labelledby="add-group-title" onSubmit={(e) => void submit(e)}>
      <h2 id="add-group-title">New group</h2>
      <div className="row wrap">
        <label className="inline grow">
          Name
          <input required value={f.name} onChange={(e) => setF({ ...f, name: e.target.value })} />
        </label>
        <label className="inline">
          Department
          <select value={f.departmentId} onChange={(e) => setF({ ...f, departmentId: e.target.value })}>
            {departments.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary">
          Create group
        </button>
      </div>
      <ErrorText>{error}</ErrorText>
    </form>
  );
}

function GroupDetail({ group, onChanged }: { group: Group; onChanged: () => void }) {
  const { api } = useSession();
  const base = `/groups/${encodeURIComponent(group.id)}`;
  const detail = useLoad((s) => api.get<{ group: Group }>(base, s), [group.id]);
  const [name, setName] = useState(group.name);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const run = async (fn: () => Promise<unknown>, said: string) => {
    setError(null);
    setNotice(null);
    try {
      await fn();
      setNotice(said);
      detail.reload();
      onChanged();
    } catch (e) {
      setError(ruleMessage(e));
    }
  };
  return (
    <div className="dept-detail">
      <ErrorText>{error ?? detail.error}</ErrorText>
      <p role="status" className="muted">
        {notice}
      </p>
      <form
        className="row wrap"
        onSubmit={(e) => {
          e.preventDefault();
          void run(() => api.send('PATCH', base, { name }), 'Renamed.');
        }}
      >
        <label className="inline grow">
          Group name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit">Rename group</button>
      </form>
      <h3>Members</h3>
      <ul className="plain-list">
        {detail.data?.group.members?.map((m) => (
          <li key={m.id} className="row">
            <span className="grow">
              {m.name} <span className="muted small">{m.email}</span>
            </span>
            <button
              type="button"
              aria-label={`Remove ${m.name} from ${group.name}`}
              onClick={() => void run(() => api.send('DELETE', `${base}/members/${m.id}`), `${m.name} left ${group.name}.`)}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      {detail.data?.group.members?.length === 0 && <p className="muted">No members.</p>}
      <AddMember
        label={`Add a member to ${group.name}`}
        onAdd={(id, who) => run(() => api.send('POST', `${base}/members`, { userIds: [id] }), `${who} joined ${group.name}.`)}
      />
      <button
        type="button"
        className="danger"
        onClick={() => {
          if (window.confirm(`Delete the group ${group.name}?`)) void run(() => api.send('DELETE', base), 'Deleted.');
        }}
      >
        Delete group
      </button>
    </div>
  );
}
