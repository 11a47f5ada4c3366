import { useState, type FormEvent } from 'react';
import { reaches } from '../../lib/types';
import { useSession } from '../../session';
import { ErrorText, useLoad } from '../common';
import { Choices, ListStatus, ManagedCards, namedChoices } from '../controls';
import { AddMember, DeleteButton, Members } from './Departments';
import { AdminScreen, ruleMessage, useChange, type Department, type Group } from './org';

/** Groups (within a department): create, rename, delete; add and remove members. The server decides who may. */
export function Groups() {
  const { api, can } = useSession();
  const list = useLoad((s) => api.get('/groups', s), []);
  const departments = useLoad((s) => api.get('/departments', s), []);
  // groups are created in the departments the server lets the caller edit groups of
  const editable = departments.data?.departments.filter((d) => reaches(can.groups.edit, d.id)) ?? [];
  return (
    <AdminScreen id="groups" title="Groups">
      <ListStatus loaded={list} what="groups" count={list.data?.groups.length} none="No groups yet." />
      <ManagedCards
        items={list.data?.groups}
        heading={(g) => (
          <>
            <h2 className="grow">
              {g.name} <span className="muted small">in {g.department?.name ?? 'a department'}</span>
            </h2>
            <span className="muted small">{g.memberCount} members</span>
          </>
        )}
        detail={(g) => <GroupDetail group={g} onChanged={list.reload} />}
      />
      {editable.length > 0 && <CreateGroup departments={editable} onCreated={list.reload} />}
    </AdminScreen>
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
        <Choices
          label="Department"
          value={f.departmentId}
          onChange={(e) => setF({ ...f, departmentId: e.target.value })}
          choices={namedChoices(departments)}
        />
        <button type="submit" className="primary">
          Create group
        </button>
      </div>
      <ErrorText>{error}</ErrorText>
    </form>
  );
}

function GroupDetail({ group, onChanged }: { group: Group; onChanged: () => void }) {
  const { api, can } = useSession();
  const base = `/groups/${encodeURIComponent(group.id)}` as const;
  const detail = useLoad((s) => api.get(base, s), [group.id]);
  const canEdit = reaches(can.groups.edit, group.departmentId);
  // a group's members come from its department
  const candidates = useLoad(
    (s) => (canEdit ? api.get(`/departments/${encodeURIComponent(group.departmentId)}/members`, s) : Promise.resolve({ members: [] })),
    [group.departmentId, canEdit],
  );
  const [name, setName] = useState(group.name);
  const { error, notice, run } = useChange(() => {
    detail.reload();
    onChanged();
  });
  return (
    <div className="dept-detail">
      <ErrorText>{error ?? detail.error}</ErrorText>
      <p role="status" className="muted">
        {notice}
      </p>
      {canEdit && (
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
      )}
      <h3>Members</h3>
      <Members
        of={group.name}
        members={detail.data?.group.members}
        about={(m) => m.email}
        onRemove={
          canEdit ? (m) => void run(() => api.send('DELETE', `${base}/members/${m.id}`), `${m.name} left ${group.name}.`) : undefined
        }
      />
      {canEdit && (
        <>
          <AddMember
            label={`Add a member to ${group.name}`}
            people={candidates.data?.members ?? []}
            onAdd={(id, who) => run(() => api.send('POST', `${base}/members`, { userIds: [id] }), `${who} joined ${group.name}.`)}
          />
          <DeleteButton what="group" name={group.name} onDelete={() => void run(() => api.send('DELETE', base), 'Deleted.')} />
        </>
      )}
    </div>
  );
}
