import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { gates } from '../access/gates';
import type { PlatformRole, UserStatus } from '../entities';
import { ValidationError } from '../errors';
import { AUDIT_DEFAULT_LIMIT, AuditLogQuery } from './audit.inputs';
import type { AuditRow } from '../presenters/audit.presenter';
import { BaseService } from '../db/service-context';
import { query } from '../db/sql';
import { type AuditRecord, insertAuditEntry, userEntry } from '../db/audit-entries';

export type { AuditRecord };

/** What a user PATCH changed that decides access: the platform role and the status. */
export interface UserAccessChange {
  userId: string;
  role?: { from: PlatformRole; to: PlatformRole };
  status?: { from: UserStatus; to: UserStatus };
}

/** Why a membership went without a request naming it (metadata.reason). */
export type MembershipReason = 'moved' | 'department_changed' | 'group_deleted' | 'user_deleted';

/** What a project PATCH changed that decides who has access (audited like a grant). */
export interface ProjectAccessChange {
  projectId: string;
  visibility?: { from: boolean; to: boolean };
  owner?: { from: string | null; to: string };
}

/** The grant history (DESIGN §4). Writers pass the EntityManager of the transaction making the change. */
export class AuditService extends BaseService {
  /**
   * Writes one entry inside the caller's transaction, so the entry exists exactly when the change
   * it describes commits (a failed change leaves no entry, and a failed entry undoes the change).
   */
  async record(tx: EntityManager, actor: Actor, entry: AuditRecord): Promise<void> {
    await insertAuditEntry(tx, actor.system ? null : actor.id, entry);
  }

  /**
   * `isPrivate` and owner changes decide access like grants do: `project_visibility_changed`
   * (target: the acting user; metadata.tier `use`, the tier a public project gives everyone, with
   * `isPrivate`/`previousIsPrivate`) and `project_owner_changed` (target: the new owner; metadata.tier
   * `full`, with `previousOwnerId`). Same transaction as the change.
   */
  async recordProjectAccessChange(tx: EntityManager, actor: Actor, change: ProjectAccessChange): Promise<void> {
    if (change.visibility && change.visibility.from !== change.visibility.to) {
      await this.record(tx, actor, {
        action: 'project_visibility_changed',
        projectId: change.projectId,
        targetType: 'user',
        targetId: actor.id,
        metadata: { tier: 'use', isPrivate: change.visibility.to, previousIsPrivate: change.visibility.from },
      });
    }
    if (change.owner && change.owner.from !== change.owner.to) {
      await this.record(tx, actor, {
        action: 'project_owner_changed',
        projectId: change.projectId,
        targetType: 'user',
        targetId: change.owner.to,
        metadata: { tier: 'full', previousOwnerId: change.owner.from },
      });
    }
  }

  /**
   * `user_role_changed` (metadata `role`, `previousRole`) and `user_status_changed` (`status`,
   * `previousStatus`): target the user, no project. Same transaction as the change.
   */
  async recordUserAccessChange(tx: EntityManager, actor: Actor, change: UserAccessChange): Promise<void> {
    if (change.role && change.role.from !== change.role.to) {
      await this.record(tx, actor, userEntry('user_role_changed', change.userId, { role: change.role.to, previousRole: change.role.from }));
    }
    if (change.status && change.status.from !== change.status.to) {
      await this.record(
        tx,
        actor,
        userEntry('user_status_changed', change.userId, { status: change.status.to, previousStatus: change.status.from }),
      );
    }
  }

  /**
   * A user's department changed from `from` to `to` (either may be null): `department_member_removed`
   * for the one left and `department_member_added` for the one joined (metadata `departmentId`), target
   * the user, no project.
   */
  async recordDepartmentChange(
    tx: EntityManager,
    actor: Actor,
    userId: string,
    from: string | null,
    to: string | null,
    reason?: MembershipReason,
  ): Promise<void> {
    if (from === to) return;
    if (from) {
      await this.record(
        tx,
        actor,
        userEntry('department_member_removed', userId, { departmentId: from, ...(reason ? { reason } : to ? { reason: 'moved' } : {}) }),
      );
    }
    if (to) {
      await this.record(tx, actor, userEntry('department_member_added', userId, { departmentId: to }));
    }
  }

  /**
   * Adds users to a group and records `group_member_added` (target the user, metadata `groupId`) for
   * each row actually inserted (one statement; existing memberships are left alone and not recorded).
   */
  async addGroupMembers(tx: EntityManager, actor: Actor, groupId: string, userIds: string[]): Promise<void> {
    if (!userIds.length) return;
    await query(
      tx,
      `with added as (
         insert into group_members (group_id, user_id) select ?::uuid, u from unnest(array[?]::uuid[]) u
         on conflict (group_id, user_id) do nothing returning group_id, user_id)
       insert into audit_entries (action, actor_id, project_id, target_type, target_id, metadata, created_at)
       select 'group_member_added', ?, null, 'user', a.user_id, jsonb_build_object('groupId', a.group_id), clock_timestamp()
         from added a`,
      [groupId, userIds, actor.system ? null : actor.id],
    );
  }

  /**
   * Deletes the group memberships matching `where` (over `group_members gm` joined to `groups g`) and
   * records `group_member_removed` (target the user, metadata `groupId`, `reason` when given) for each
   * row actually deleted. Returns how many went.
   */
  async deleteGroupMembers(tx: EntityManager, actor: Actor, where: string, params: unknown[], reason?: MembershipReason): Promise<number> {
    const rows: Array<{ n: number }> = await query(
      tx,
      `with gone as (delete from group_members gm using groups g where gm.group_id = g.id and (${where}) returning gm.group_id, gm.user_id),
       logged as (
         insert into audit_entries (action, actor_id, project_id, target_type, target_id, metadata, created_at)
         select 'group_member_removed', ?, null, 'user', x.user_id,
                jsonb_strip_nulls(jsonb_build_object('groupId', x.group_id, 'reason', ?::text)), clock_timestamp()
           from gone x
         returning 1)
       select count(*)::int as n from logged`,
      [...params, actor.system ? null : actor.id, reason ?? null],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * The projects a deleted user owned lose their owner (what `ON DELETE SET NULL` would do), each
   * recorded as `project_owner_changed` from the rows actually updated: target the previous owner,
   * metadata `previousOwnerId` and `reason: user_deleted`. The caller holds the user row's lock, so no
   * project can be given to the user in between (the foreign-key check waits on it).
   */
  async clearUserOwnerships(tx: EntityManager, actor: Actor, userId: string): Promise<void> {
    await query(
      tx,
      `with changed as (update projects set owner_id = null where owner_id = ? returning id)
       insert into audit_entries (action, actor_id, project_id, target_type, target_id, metadata, created_at)
       select 'project_owner_changed', ?, c.id, 'user', ?::uuid,
              jsonb_build_object('tier', 'full', 'previousOwnerId', ?::text, 'reason', 'user_deleted'), clock_timestamp()
         from changed c`,
      [userId, actor.system ? null : actor.id, userId, userId],
    );
  }

  /**
   * Deletes a project's grants and records a grant_deleted entry for each row actually deleted
   * (one `DELETE … RETURNING` statement), inside the transaction that deletes the project; the
   * caller holds the project row's lock, so no grant can be added in between.
   */
  deleteProjectGrants(tx: EntityManager, actor: Actor, projectId: string): Promise<void> {
    return this.deleteGrantsAudited(tx, actor, 'project_id = ?', projectId, 'project_deleted');
  }

  /** The same for the grants to a user being deleted (the caller holds the user row's lock). */
  deleteUserGrants(tx: EntityManager, actor: Actor, userId: string): Promise<void> {
    return this.deleteGrantsAudited(tx, actor, 'user_id = ?', userId, 'user_deleted');
  }

  /** No grant vanishes unaudited (spec Grants rule 4): the entries come from the deleted rows themselves. */
  private async deleteGrantsAudited(tx: EntityManager, actor: Actor, where: string, id: string, reason: string): Promise<void> {
    await query(
      tx,
      `with gone as (delete from project_grants where ${where} returning project_id, user_id, group_id, department_id, tier)
       insert into audit_entries (action, actor_id, project_id, target_type, target_id, metadata, created_at)
       select 'grant_deleted', ?, g.project_id,
              case when g.user_id is not null then 'user' when g.group_id is not null then 'group' else 'department' end,
              coalesce(g.user_id, g.group_id, g.department_id),
              jsonb_build_object('tier', g.tier, 'reason', ?::text), clock_timestamp()
         from gone g`,
      [id, actor.system ? null : actor.id, reason],
    );
  }

  /**
   * Admin or superadmin. Newest first, with the total matching the filters, each entry with the
   * names of its actor, project and target as they are now (null once deleted; a key's from the
   * entry): the page and its names in one query, the total in another.
   */
  async list(actor: Actor, q: AuditLogQuery): Promise<{ entries: AuditRow[]; total: number }> {
    gates.requirePlatformAdmin(actor);
    const from = q.from ? new Date(q.from) : undefined;
    const to = q.to ? new Date(q.to) : undefined;
    if (from && Number.isNaN(from.getTime())) throw ValidationError.field('from', 'from must be an ISO 8601 timestamp');
    if (to && Number.isNaN(to.getTime())) throw ValidationError.field('to', 'to must be an ISO 8601 timestamp');
    if (from && to && from > to) throw ValidationError.field('from', 'from must not be after to');
    // timestamps go out with millisecond precision but are stored with microseconds: `to` includes
    // its whole millisecond, so an entry's own createdAt used as `to` still matches it
    // only the filters given, so the planner sees plain conditions (the project and created_at indexes)
    const conditions: Array<[string, unknown]> = [];
    if (q.projectId) conditions.push(['e.project_id = ?', q.projectId]);
    if (q.actorId) conditions.push(['e.actor_id = ?', q.actorId]);
    if (q.action) conditions.push(['e.action = ?', q.action]);
    if (from) conditions.push(['e.created_at >= ?', from]);
    if (to) conditions.push(['e.created_at < ?', new Date(to.getTime() + 1)]);
    const where = conditions.length ? conditions.map(([c]) => c).join(' and ') : 'true';
    const params = conditions.map(([, v]) => v);
    const em = this.em();
    // the page first (the created_at index, stopping at the limit), then the names of its entries only
    const entries = await query<AuditRow>(
      em,
      `with e as (select * from audit_entries e where ${where} order by e.created_at desc, e.id desc limit ? offset ?)
       select e.id, e.action, e.actor_id as "actorId", e.project_id as "projectId", e.target_type as "targetType",
              e.target_id as "targetId", coalesce(e.metadata, '{}'::jsonb) as metadata, e.created_at as "createdAt",
              a.name as "actorName", p.name as "projectName",
              case e.target_type when 'user' then tu.name when 'group' then tg.name when 'department' then td.name
                                 when 'project' then tp.name when 'key' then coalesce(tk.name, e.metadata->>'name') end as "targetName"
         from e
         left join users a on a.id = e.actor_id
         left join projects p on p.id = e.project_id
         left join users tu on e.target_type = 'user' and tu.id = e.target_id
         left join groups tg on e.target_type = 'group' and tg.id = e.target_id
         left join departments td on e.target_type = 'department' and td.id = e.target_id
         left join projects tp on e.target_type = 'project' and tp.id = e.target_id
         left join api_keys tk on e.target_type = 'key' and tk.id = e.target_id
        order by e.created_at desc, e.id desc`,
      [...params, q.limit ?? AUDIT_DEFAULT_LIMIT, q.offset ?? 0],
    );
    const [{ n: total }] = await query<{ n: number }>(em, `select count(*)::int as n from audit_entries e where ${where}`, params);
    return { entries, total };
  }
}
