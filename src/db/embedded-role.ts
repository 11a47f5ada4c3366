import { createHmac } from 'node:crypto';
import pg from 'pg';
import { JOBS_SCHEMA } from './schemas';
import { USER } from './embedded-layout';

/** The role the application connects as (not a superuser). */
export const APP_ROLE = 'docqa_app';

/** The application role's password: derived from the cluster's (so DATA_DIR keeps one secret). */
export const appPasswordOf = (password: string): string => createHmac('sha256', password).update(APP_ROLE).digest('base64url');

/**
 * Creates or updates the application role (login, no superuser, no role or database creation) and
 * grants it the rows of every table and sequence in `public`, now and (default privileges) those
 * the superuser's migrations create later. Idempotent: runs at every start.
 */
export async function ensureAppRole(url: string, database: string, password: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const exists = (await c.query('select 1 from pg_roles where rolname = $1', [APP_ROLE])).rowCount;
    const attrs = `login nosuperuser nocreatedb nocreaterole noreplication nobypassrls password ${c.escapeLiteral(password)}`;
    await c.query(exists ? `alter role ${APP_ROLE} with ${attrs}` : `create role ${APP_ROLE} with ${attrs}`);
    await c.query(`grant usage on schema public to ${APP_ROLE}`);
    await c.query(`grant select, insert, update, delete on all tables in schema public to ${APP_ROLE}`);
    await c.query(`grant usage, select, update on all sequences in schema public to ${APP_ROLE}`);
    await c.query(
      `alter default privileges for role ${USER} in schema public grant select, insert, update, delete on tables to ${APP_ROLE}`,
    );
    await c.query(`alter default privileges for role ${USER} in schema public grant usage, select, update on sequences to ${APP_ROLE}`);
    // the job queue (pg-boss) keeps its own schema and makes its own tables and partitions at run
    // time: the application role may create that schema, and owns it (one made by the superuser
    // before this role existed is handed over, with everything in it)
    await c.query(`grant create on database "${database}" to ${APP_ROLE}`);
    await c.query(HAND_OVER_JOBS_SCHEMA);
  } finally {
    await c.end();
  }
}

const HAND_OVER_JOBS_SCHEMA = `
do $$
declare r record;
begin
  if not exists (select 1 from pg_namespace where nspname = '${JOBS_SCHEMA}' and nspowner <> '${APP_ROLE}'::regrole) then return; end if;
  execute 'alter schema ${JOBS_SCHEMA} owner to ${APP_ROLE}';
  for r in select c.oid::regclass as name, c.relkind from pg_class c
            where c.relnamespace = '${JOBS_SCHEMA}'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'S')
              and not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype in ('a', 'i') and d.classid = 'pg_class'::regclass
                                and d.refclassid = 'pg_class'::regclass and c.relkind = 'S') loop
    execute format('alter %s %s owner to ${APP_ROLE}', case r.relkind when 'S' then 'sequence' when 'v' then 'view' when 'm' then 'materialized view' else 'table' end, r.name);
  end loop;
  for r in select p.oid::regprocedure as name from pg_proc p where p.pronamespace = '${JOBS_SCHEMA}'::regnamespace loop
    execute format('alter routine %s owner to ${APP_ROLE}', r.name);
  end loop;
  for r in select t.oid::regtype as name from pg_type t
            where t.typnamespace = '${JOBS_SCHEMA}'::regnamespace and t.typtype in ('e', 'd') loop
    execute format('alter type %s owner to ${APP_ROLE}', r.name);
  end loop;
end $$`;
