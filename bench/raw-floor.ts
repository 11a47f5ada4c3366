import express from 'express';
import pg from 'pg';

/**
 * The floor for GET /api/projects: the same rows (projects the caller can access, tier and source,
 * members with users, document/conversation counts) fetched by ONE hand-written SQL query with
 * raw `pg` and serialised by Express — no ORM, no auth, no service layer.
 *
 *   node dist/bench/raw-floor.js --db URL --port P
 */
const SQL = `
with me as (select id, platform_role as role, department_id from users where id = $1),
acc as (
  select p.*, coalesce(
    case when me.role in ('superadmin','admin') then 'full|platform' end,
    case when p.owner_id = me.id then 'full|owner' end,
    (select g.tier || '|user' from project_grants g where g.project_id = p.id and g.user_id = me.id),
    (select (array['use','edit','full'])[max(array_position(array['use','edit','full'], g.tier))] || '|group'
       from project_grants g join group_members gm on gm.group_id = g.group_id and gm.user_id = me.id where g.project_id = p.id),
    (select g.tier || '|department' from project_grants g where g.project_id = p.id and g.department_id = me.department_id),
    case when not p.is_private then 'use|public' end) as access
  from projects p cross join me
)
select a.id, a.name, a.description, a.color, a.is_private as "isPrivate", a.instructions, a.settings,
       a.owner_id as "ownerId", a.created_by_id as "createdBy", a.created_at as "createdAt", a.updated_at as "updatedAt",
       split_part(a.access, '|', 1) as "accessTier", split_part(a.access, '|', 2) as "accessSource",
       coalesce((select json_agg(json_build_object('projectId', pm.project_id, 'userId', pm.user_id, 'addedAt', pm.added_at,
                 'user', json_build_object('id', u.id, 'name', u.name, 'email', u.email, 'avatarUrl', u.avatar_url,
                 'platformRole', u.platform_role, 'orgPosition', u.org_position, 'departmentId', u.department_id)))
                 from project_members pm join users u on u.id = pm.user_id where pm.project_id = a.id), '[]') as members,
       json_build_object('documents', (select count(*) from documents d where d.project_id = a.id),
                         'conversations', (select count(*) from conversations c where c.project_id = a.id)) as "_count"
  from acc a where a.access is not null
 order by a.created_at desc`;

const arg = (n: string): string => {
  const i = process.argv.indexOf(`--${n}`);
  if (i < 0) throw new Error(`--${n} is required`);
  return process.argv[i + 1];
};

const pool = new pg.Pool({ connectionString: arg('db'), max: 10 });
const app = express();
app.get('/raw/projects/:userId', async (req, res) => {
  const r = await pool.query(SQL, [req.params.userId]);
  res.json({ projects: r.rows });
});
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.listen(Number(arg('port')), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => void pool.end().then(() => process.exit(0)));
