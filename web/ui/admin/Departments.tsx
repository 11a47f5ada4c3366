import { useState, type FormEvent } from 'react';
import { ApiError } from '../../lib/api';
import { reaches, type CreateDepartmentInput } from '../../lib/types';
import { useSession } from '../../session';
import { ErrorText, useLoad } from '../common';
import { ListStatus, ManagedCards, NamePicker } from '../controls';
import { useTargets, type TargetOption } from '../targets';
import { AdminScreen, POSITION_LABEL, ruleMessage, useChange, type Department, type Member } from './org';

/**
 * Departments: admins create, edit and delete them and add or move members; a manager sees and
 * edits their own and removes its members; the CEO reads them all. The server scopes the list.
 */
export function Departments() {
  const { api, can } = useSession();
  const list = useLoad((s) => api.get('/departments', s), []);
  return (
    <AdminScreen id="departments" title="Departments">
      <ListStatus loaded={list} what="departments" count={list.data?.departments.length} none="No departments yet." />
      <ManagedCards
        items={list.data?.departments}
        className="plain-list dept-list"
        heading={(d) => (
          <>
            <span className="swatch" aria-hidden="true" style={{ background: d.color }} />
            <h2 className="grow">{d.name}</h2>
            {d._count && (
              <span className="muted small">
                {d._count.members} members · {d._count.groups} groups · {d._count.grants} grants
              </span>
            )}
          </>
        )}
        extra={(d) => d.description && <p className="muted">{d.description}</p>}
        detail={(d) => <DepartmentDetail department={d} onChanged={list.reload} />}
      />
      {can.departments.create && <CreateDepartment onCreated={list.reload} />}
    </AdminScreen>
  );
}

function DepartmentFields({
  initial,
  submitLabel,
  onSubmit,
}: {
  initial: Partial<Department>;
  submitLabel: string;
  onSubmit: (b: CreateDepartmentInput) => Promise<void>;
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
  const { api, can } = useSession();
  const base = `/departments/${encodeURIComponent(department.id)}` as const;
  const members = useLoad((s) => api.get(`${base}/members`, s), [department.id]);
  const canEdit = reaches(can.departments.edit, department.id);
  const { error, notice, run } = useChange(() => {
    members.reload();
    onChanged();
  });
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
      <Members
        of={department.name}
        members={members.data?.members}
        about={(m) => `${m.email} · ${POSITION_LABEL[m.orgPosition]}`}
        onRemove={
          reaches(can.departments.removeMembers, department.id)
            ? (m) => void run(() => api.send('DELETE', `${base}/members/${m.id}`), `${m.name} left ${department.name}.`)
            : undefined
        }
      />
      {can.departments.addMembers && <AddMember label={`Add a member to ${department.name}`} onAdd={add} />}
      {can.departments.delete && (
        <DeleteButton what="department" name={department.name} onDelete={() => void run(() => api.send('DELETE', base), 'Deleted.')} />
      )}
    </div>
  );
}

/** A department's or a group's Delete button, which asks first. */
export function DeleteButton({ what, name, onDelete }: { what: 'department' | 'group'; name: string; onDelete: () => void }) {
  return (
    <button
      type="button"
      className="danger"
      onClick={() => {
        if (window.confirm(`Delete the ${what} ${name}?`)) onDelete();
      }}
    >
      Delete {what}
    </button>
  );
}

/** The members of a department or group (`of`), each with `about` them, and a Remove button when `onRemove` is given. */
export function Members({
  of,
  members,
  about,
  onRemove,
}: {
  of: string;
  members: Member[] | undefined;
  about: (m: Member) => string;
  onRemove?: (m: Member) => void;
}) {
  return (
    <>
      <ul className="plain-list">
        {members?.map((m) => (
          <li key={m.id} className="row">
            <span className="grow">
              {m.name} <span className="muted small">{about(m)}</span>
            </span>
            {onRemove && (
              <button type="button" aria-label={`Remove ${m.name} from ${of}`} onClick={() => onRemove(m)}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      {members?.length === 0 && <p className="muted">No members.</p>}
    </>
  );
}

type AddMemberProps = { label: string; onAdd: (id: string, name: string) => Promise<void> };

/**
 * A person picked by name, then added: from `people` when given (a group's candidates are its
 * department's members, which its managers can read), else from GET /users?search= (admins).
 */
export function AddMember({ people, ...props }: AddMemberProps & { people?: Member[] }) {
  const [name, setName] = useState('');
  if (!people) return <AddMemberFromUsers {...props} name={name} setName={setName} />;
  const wanted = name.trim().toLowerCase();
  const options = people
    .map((p) => ({ id: p.id, label: `${p.name} (${p.email})` }))
    .filter((o) => !wanted || o.label.toLowerCase().includes(wanted.replace(/ \(.*$/, '')));
  return <AddMemberForm {...props} name={name} setName={setName} targets={{ options, error: null, loading: false }} />;
}

type NameState = { name: string; setName: (n: string) => void };

function AddMemberFromUsers(props: AddMemberProps & NameState) {
  return <AddMemberForm {...props} targets={useTargets('user', props.name)} />;
}

function AddMemberForm({
  label,
  onAdd,
  name,
  setName,
  targets,
}: AddMemberProps & NameState & { targets: { options: TargetOption[]; error: string | null; loading: boolean } }) {
  const [error, setError] = useState<string | null>(null);
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
        <NamePicker listId={listId} value={name} onChange={setName} options={targets.options} required />
      </label>
      <button type="submit">Add member</button>
      <ErrorText>{error ?? targets.error}</ErrorText>
    </form>
  );
}
