import { useState, type FormEvent } from 'react';
import { navigate, projectPath } from '../../lib/router';
import type { UpdateUserInput } from '../../lib/types';
import { useSession } from '../../session';
import { ErrorText, Link, LoadFailed, Loading, TIER_LABEL, useLoad, useTitle } from '../common';
import { TextField, useFields } from '../controls';
import { PlaceFields, ROLE_LABEL, ruleMessage, type Department, type Person, type PlatformRole } from './org';

/** One person: edit, deactivate or reactivate, reset the password, delete; and what they can access, and why. */
export function UserPage({ userId }: { userId: string }) {
  const { api } = useSession();
  const base = `/users/${encodeURIComponent(userId)}` as const;
  const user = useLoad((s) => api.get(base, s), [userId]);
  const departments = useLoad((s) => api.get('/departments', s), []);
  const access = useLoad((s) => api.get(`/grants/by-user/${encodeURIComponent(userId)}`, s), [userId]);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const u = user.data?.user;
  useTitle(u && `${u.name} · Users`);

  const change = async (body: UpdateUserInput, said: string) => {
    setError(null);
    setNotice(null);
    try {
      await api.send('PATCH', base, body);
      setNotice(said);
      user.reload();
      access.reload();
    } catch (e) {
      setError(ruleMessage(e));
    }
  };
  const remove = async () => {
    if (!u || !window.confirm(`Delete ${u.name}? Their grants and memberships go with them; their conversations stay.`)) return;
    try {
      await api.send('DELETE', base);
      navigate('/users');
    } catch (e) {
      setError(ruleMessage(e));
    }
  };

  if (user.error) return <LoadFailed title="User" error={user.error} backTo="/users" back="Back to users" />;
  if (!u) return <Loading what="the person" />;
  return (
    <section className="admin" aria-labelledby="user-title">
      <p>
        <Link to="/users">← Users</Link>
      </p>
      <h1 id="user-title">{u.name}</h1>
      <p className="muted">
        {u.email} · {u.status === 'active' ? 'Active' : 'Inactive'}
      </p>
      <ErrorText>{error}</ErrorText>
      <p role="status" className="muted">
        {notice}
      </p>
      <EditUser key={JSON.stringify(u)} user={u} departments={departments.data?.departments ?? []} onSave={(b) => change(b, 'Saved.')} />
      <div className="card row wrap">
        {u.status === 'active' ? (
          <button type="button" onClick={() => void change({ status: 'inactive' }, `${u.name} is deactivated and signed out.`)}>
            Deactivate
          </button>
        ) : (
          <button type="button" onClick={() => void change({ status: 'active' }, `${u.name} can sign in again.`)}>
            Reactivate
          </button>
        )}
        <ResetPassword onReset={(password) => change({ password }, 'The password was reset.')} />
        <button type="button" className="danger" onClick={() => void remove()}>
          Delete user
        </button>
      </div>
      <section aria-labelledby="reach-title">
        <h2 id="reach-title">What they can access</h2>
        <ErrorText>{access.error}</ErrorText>
        {access.data && (
          <ul className="plain-list">
            {[
              ...access.data.direct.map((r) => ({ r, why: 'granted to them' })),
              ...access.data.viaGroup.map((r) => ({ r, why: `through the group ${r.group?.name ?? ''}` })),
              ...access.data.viaDepartment.map((r) => ({ r, why: `through the department ${r.department?.name ?? ''}` })),
            ].map(({ r, why }, i) => (
              <li key={i}>
                <Link to={projectPath(r.projectId)}>{r.project.name}</Link>: {TIER_LABEL[r.tier]} <span className="muted">{why}</span>
              </li>
            ))}
          </ul>
        )}
        {access.data && !access.data.direct.length && !access.data.viaGroup.length && !access.data.viaDepartment.length && (
          <p className="muted">No grant reaches them (platform roles, ownership and open projects still may).</p>
        )}
      </section>
    </section>
  );
}

function EditUser({
  user,
  departments,
  onSave,
}: {
  user: Person;
  departments: Department[];
  onSave: (b: UpdateUserInput) => Promise<void>;
}) {
  const { values: f, field } = useFields({
    name: user.name,
    email: user.email,
    platformRole: user.platformRole,
    orgPosition: user.orgPosition,
    departmentId: user.departmentId ?? '',
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // only what changed goes to the server, so an admin editing a name does not "change" a role
    const body: UpdateUserInput = {};
    if (f.name !== user.name) body.name = f.name;
    if (f.email !== user.email) body.email = f.email;
    if (f.platformRole !== user.platformRole) body.platformRole = f.platformRole;
    if (f.orgPosition !== user.orgPosition) body.orgPosition = f.orgPosition;
    if (f.departmentId !== (user.departmentId ?? '')) body.departmentId = f.departmentId || null;
    void onSave(body);
  };
  return (
    <form className="card form" aria-labelledby="edit-user-title" onSubmit={submit}>
      <h2 id="edit-user-title">Details</h2>
      <div className="row wrap">
        <TextField label="Name" required {...field('name')} />
        <TextField label="Email" type="email" required {...field('email')} />
      </div>
      <div className="row wrap">
        <label className="inline">
          Platform role
          <select {...field('platformRole')}>
            {(Object.keys(ROLE_LABEL) as PlatformRole[]).map((r) => (
              <option key={r} value={r} disabled={r === 'superadmin' && user.platformRole !== 'superadmin'}>
                {ROLE_LABEL[r]}
              </option>
            ))}
          </select>
        </label>
        <PlaceFields field={field} departments={departments} />
        <button type="submit" className="primary">
          Save changes
        </button>
      </div>
    </form>
  );
}

function ResetPassword({ onReset }: { onReset: (p: string) => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Reset password
      </button>
    );
  return (
    <form
      className="row wrap"
      onSubmit={(e) => {
        e.preventDefault();
        void onReset(password).then(() => {
          setOpen(false);
          setPassword('');
        });
      }}
    >
      <label className="inline">
        New password
        <input
          type="password"
          minLength={8}
          required
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      <button type="submit">Set password</button>
    </form>
  );
}
