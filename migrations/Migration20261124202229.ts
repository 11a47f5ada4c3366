import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 25, live streams follow access: every write that can take a stream's access away notifies
 * `docqa_access_changed` in its own transaction (delivered at commit, to every node), naming the user
 * (`{"u": id}`), project (`{"p": id}`) or document (`{"d": id}`) it touched. Triggers, so no write
 * path (ORM, raw SQL, a foreign-key cascade) can forget. Inserts of grants and memberships only ever
 * add access, so they stay silent. PostgreSQL folds identical payloads within one transaction.
 */
export class Migration20261124202229 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create function docqa_access_changed() returns trigger language plpgsql as $$
declare
  changed uuid;
begin
  -- one branch per row type: plpgsql prepares only the statements it runs
  if tg_table_name in ('users', 'projects', 'documents') then
    changed := old.id;
  elsif tg_argv[0] = 'u' then
    changed := old.user_id;
  else
    changed := old.project_id;
  end if;
  perform pg_notify('docqa_access_changed', json_build_object(tg_argv[0], changed)::text);
  return null;
end $$;`);
    this.addSql(`create trigger users_access_changed after update of status, platform_role, department_id on users for each row
  when (old.status is distinct from new.status or old.platform_role is distinct from new.platform_role
        or old.department_id is distinct from new.department_id)
  execute function docqa_access_changed('u');`);
    this.addSql(`create trigger users_access_deleted after delete on users for each row execute function docqa_access_changed('u');`);
    this.addSql(`create trigger group_members_access_deleted after delete on group_members for each row execute function docqa_access_changed('u');`);
    this.addSql(`create trigger project_grants_access_changed after update or delete on project_grants for each row execute function docqa_access_changed('p');`);
    this.addSql(`create trigger projects_access_changed after update of is_private, owner_id on projects for each row
  when (old.is_private is distinct from new.is_private or old.owner_id is distinct from new.owner_id)
  execute function docqa_access_changed('p');`);
    this.addSql(`create trigger projects_access_deleted after delete on projects for each row execute function docqa_access_changed('p');`);
    this.addSql(`create trigger documents_access_deleted after delete on documents for each row execute function docqa_access_changed('d');`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists documents_access_deleted on documents;`);
    this.addSql(`drop trigger if exists projects_access_deleted on projects;`);
    this.addSql(`drop trigger if exists projects_access_changed on projects;`);
    this.addSql(`drop trigger if exists project_grants_access_changed on project_grants;`);
    this.addSql(`drop trigger if exists group_members_access_deleted on group_members;`);
    this.addSql(`drop trigger if exists users_access_deleted on users;`);
    this.addSql(`drop trigger if exists users_access_changed on users;`);
    this.addSql(`drop function if exists docqa_access_changed();`);
  }

}
