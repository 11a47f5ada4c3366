import { useEffect, useState, type FormEvent } from 'react';
import { ApiError } from '../../lib/api';
import { managesPeople, useSession } from '../../session';
import { ErrorText, Loading, useLoad } from '../common';
import { useTargets } from '../targets';
import { POSITION_LABEL, ruleMessage, type Department, type Member } from './org';

/**
 * Departments: admins create, edit and delete them and add or move members; a manager sees and
 * edits their own and removes its members; the CEO reads them all. The server scopes the list.
 */
export function Departments() {
  const { api, user } = useSession();
  const list = useLoad((s) => api.get<{ departments: Department[] }>('/departments', s), []);
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => {
    document.title = 'Departments · DocQA';
  }, []);
  return (
    <section className="admin" aria-labelledby="departments-title">
      <h1 id="departments-title">Departments</h1>
      {list.loading && !list.data && <Loading what="departments" />}
      <ErrorText>{list.error}</ErrorText>
      {list.data?.departments.length === 0 && <p className="muted">No departments yet.</p>}
      <ul className="plain-list dept-list">
        {list.data?.departments.map((d) => (
          <li key={d.id} className="card">
            <div className="row wrap">
              <span className="swatch" aria-hidden="true" style={{ background: d.color }} />
              <h2 className="grow">{d.name}</h2>
              {d._count && (
                <span className="muted small">
                  {d._count.members} members · {d._count.groups} groups · {d._count.grants} grants
                </span>
              )}
              <button type="button" aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? null : d.id)}>
                {open === d.id ? `Close ${d.name}` : `Manage ${d.name}`}
              </button>
            </div>
            {d.description && <p className="muted">{d.description}</p>}
            {open === d.id && <DepartmentDetail department={d} onChanged={list.reload} />}
          </li>
        ))}
      </ul>
      {managesPeople(user) && <CreateDepartment onCreated={list.reload} />}
    </section>
  );
}

function DepartmentFields({
  initial,
  submitLabel,
  onSubmit,
}: {
  initial: Partial<Department>;
  submitLabel: string;
  onSubmit: (b: object) => Promise<void>;
}) {
  const [f, setF] = useState({ name: initial.name ?? '', color: initial.color ?? '#2563eb', description: initial.description ?? '' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void onSubmit(f);
  };
  return (
    <form className="row wrap" onSubmit={submit}>
      <label className="inline grow">
        Name
        <input required value={f.name} onChange={(e) => setF({ ...f, name: e.target.value })} />
      </label>
      <label className="inline">
        Color
        <input type="color" value={f.color} onChange={(e) => setF({ ...f, color: e.target.value })} />
      </label>
      <label className="inline grow">
        Description
        <input value={f.description} onChange={(e) => setF({ ...f, description: e.target.value })} />
      </label>
      <button type="submit" className="primary">
        {submitLabel}
      </button>
    </form>
  );
}

function CreateDepartment({ onCreated }: { onCreated: () => void }) {
  const { api } = useSession();
  const [error, setError] = useState<string | null>(null);
  const [key, setKey] = useState(0);
  return (
    <section className="card form" aria-labelledby="add-dept-title">
      <h2 id="add-dept-title">New department</h2>
      <DepartmentFields
        key={key}
        initial={{}}
        submitLabel="Create department"
        onSubmit={async (b) => {
          setError(null);
          try {
            await api.send('POST', '/departments', b);
            setKey((k) => k + 1);
            onCreated();
          } catch (e) {
            setError(ruleMessage(e));
          }
        }}
      />
      <ErrorText>{error}</ErrorText>
    </section>
  );
}

function DepartmentDetail({ department, onChanged }: { department: Department; onChanged: () => void }) {
  const { api, user } = useSession();
  const base = `/departments/${encodeURIComponent(department.id)}`;
  const members = useLoad((s) => api.get<{ members: Member[] }>(`${base}/members`, s), [department.id]);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const admin = managesPeople(user);
  const canEdit = admin || (user.orgPosition === 'manager' && user.departmentId === department.id);
  const run = async (fn: () => Promise<unknown>, said: string) => {
    setError(null);
    setNotice(null);
    try {
      await fn();
      setNotice(said);
      members.reload();
      onChanged();
    } catch (e) {
      setError(ruleMessage(e));
    }
  };
  const add = (userId: string, name: string) =>
    run(async () => {
      try {
        await api.send('POST', `${base}/members`, { userIds: [userId] });
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 'user_in_other_department')) throw e;
        // spec rule 1: moving someone out of another department takes `replace`; ask first
        if (!window.confirm(`${name} is in another department. Move them to ${department.name}?`)) return;
        await api.send('POST', `${base}/members`, { userIds: [userId], replace: true });
      }
    }, `${name} is in ${department.name}.`);

  return (
    <div className="dept-detail">
      <ErrorText>{error}</ErrorText>
      <p role="status" className="muted">
        {notice}
      </p>
      {canEdit && (
        <DepartmentFields
          initial={department}
          submitLabel="Save department"
          onSubmit={(b) => run(() => api.send('PATCH', base, b), 'Saved.')}
        />
      )}
      <h3>Members</h3>
      <ErrorText>{members.error}</ErrorText>
      <ul className="plain-list">
        {members.data?.members.map((m) => (
          <li key={m.id} className="row">
            <span className="grow">
              {m.name}{' '}
              <span className="muted small">
                {m.email} · {POSITION_LABEL[m.orgPosition]}
              </span>
            </span>
            {(canEdit || user.orgPosition === 'ceo') && (
              <button
                type="button"
                aria-label={`Remove ${m.name} from ${department.name}`}
                onClick={() => void run(() => api.send('DELETE', `${base}/members/${m.id}`), `${m.name} left ${department.name}.`)}
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      {members.data?.members.length === 0 && <p className="muted">No members.</p>}
      {admin && <AddMember label={`Add a member to ${department.name}`} onAdd={add} />}
      {admin && (
        <button
          type="button"
          className="danger"
          onClick={() => {
            if (window.confirm(`Delete the department ${department.name}?`)) void run(() => api.send('DELETE', base), 'Deleted.');
          }}
        >
          Delete department
        </button>
      )}
    </div>
  );
}

/** A person picked by name (GET /users?search=), then added. */
export function AddMember({ label, onAdd }: { label: string; onAdd: (id: string, name: string) => Promise<void> }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const targets = useTargets('user', name);
  const listId = `people-${label.replace(/\W+/g, '-')}`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const wanted = name.trim().toLowerCase();
    const match =
      targets.options.find((o) => o.label.toLowerCase() === wanted) ?? (targets.options.length === 1 ? targets.options[0] : undefined);
    if (!match) return setError(targets.loading ? 'Still looking up names: try again in a moment.' : `Pick a person from the suggestions.`);
    setError(null);
    void onAdd(match.id, match.label.replace(/ \(.*\)$/, '')).then(() => setName(''));
  };
  return (
    <form className="row wrap" onSubmit={submit} aria-label={label}>
      <label className="inline grow">
        Person
        <input list={listId} value={name} onChange={(e) => setName(e.target.value)} required autoComplete="off" />
        <datalist id={listId}>
          {targets.options.map((o) => (
            <option key={o.id} value={o.label} />
          ))}
        </datalist>
      </label>
      <button type="submit">Add member</button>
      <ErrorText>{error ?? targets.error}</ErrorText>
    </form>
  );
}
