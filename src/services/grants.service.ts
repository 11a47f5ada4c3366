import type { EntityManager } from '@mikro-orm/postgresql';
import { ACTOR_COLUMNS, actorFromRow, type Actor, type ActorRow } from '../access/actor';
import { accessTo, type AccessSource } from '../access/resolver';
import { gates } from '../access/gates';
import { requireTier } from '../access/read-rules';
import type { TargetType, Tier } from '../entities';
import { NotFoundError, ValidationError } from '../errors';
import { isUuid } from '../validation';
import type { AuditService } from './audit.service';
import { Batch, one } from './batch';
import { BaseService, ServiceContext } from '../db/service-context';
import type { UpsertGrantInput } from './grants.inputs';
import type { GrantRow, GrantsByUser, UserGrantRow } from '../presenters/grant.presenter';
import { query } from '../db/sql';
import { listPerProject } from './project-batch';
export type { GrantRow, GrantsByUser, UserGrantRow };

/** The three target columns of a grant; exactly one is set (spec invariant). */
export interface GrantTarget {
  userId: string | null;
  groupId: string | null;
  departmentId: string | null;
}

const TARGET_COLUMN: Record<TargetType, 'user_id' | 'group_id' | 'department_id'> = {
  user: 'user_id',
  group: 'group_id',
  department: 'department_id',
};
const TARGET_TABLE: Record<TargetType, string> = { user: 'users', group: 'groups', department: 'departments' };

/** Spec rule 2: the service checks that exactly one target is set before anything is stored. */
export function assertOneTarget(t: GrantTarget): GrantTarget {
  const set = [t.userId, t.groupId, t.departmentId].filter((v) => v !== null && v !== undefined);
  if (set.length !== 1) throw ValidationError.field('targetId', 'exactly one of user, group or department must be the target');
  return t;
}

export function grantTarget(targetType: TargetType, targetId: string): GrantTarget {
  return assertOneTarget({
    userId: targetType === 'user' ? targetId : null,
    groupId: targetType === 'group' ? targetId : null,
    departmentId: targetType === 'department' ? targetId : null,
  });
}

export interface EffectiveAccess {
  projectId: string;
  userId: string;
  tier: Tier | null;
  source: AccessSource | null;
}

export interface GrantResult {
  grant: GrantRow;
  action: 'created' | 'updated';
}

/** A timestamp column as the wire's ISO 8601 text (UTC, milliseconds), formatted by the database. */
const ISO = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The one read of grants: each with what REST shows of its target (a user's name and email, a
 * group's name and its department's name, a department's name and colour), as plain rows in one
 * statement, oldest first. `where` is a condition on `g` with its parameters.
 */
function readGrants(em: EntityManager, where: string, params: unknown[]): Promise<GrantRow[]> {
  return query(
    em,
    `select g.id, g.project_id, g.user_id, g.group_id, g.department_id, g.tier, g.granted_by_id,
            ${ISO('g.created_at')} as created_at, ${ISO('g.updated_at')} as updated_at,
            u.name as user_name, u.email as user_email,
            gr.name as group_name, gd.name as group_department_name,
            d.name as department_name, d.color as department_color
       from project_grants g
       left join users u on u.id = g.user_id
       left join groups gr on gr.id = g.group_id
       left join departments gd on gd.id = gr.department_id
       left join departments d on d.id = g.department_id
      where ${where}
      order by g.created_at, g.id`,
    params,
  );
}

export class GrantsService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly audit: AuditService,
  ) {
    super(ctx);
  }

  /**
   * `full` tier. A database upsert keyed on (project, target): 201 created / 200 updated, never 409,
   * and one row however many callers post the same target at once. The audit entry and the user's
   * member row are written in the same transaction.
   */
  async upsert(actor: Actor, projectId: string, input: UpsertGrantInput): Promise<GrantResult> {
    const target = grantTarget(input.targetType, input.targetId);
    const column = TARGET_COLUMN[input.targetType];
    return this.em().transactional(async (tx) => {
      await requireTier(tx, actor, projectId, 'full');
      const exists: unknown[] = await query(tx, `select 1 from ${TARGET_TABLE[input.targetType]} where id = ?`, [input.targetId]);
      if (!exists.length) throw new NotFoundError('target_not_found', `The ${input.targetType} does not exist`);
      // The upsert alone keeps one row per target. This lock only makes concurrent posts of the same
      // target take turns, so each one reads the tier it replaces (metadata.previousTier) exactly.
      await query(tx, `select pg_advisory_xact_lock(hashtextextended(?, 0))`, [`grant:${projectId}:${input.targetType}:${input.targetId}`]);
      const [row]: Array<{ id: string; inserted: boolean; previous_tier: Tier | null }> = await query(
        tx,
        `with previous as (select tier from project_grants where project_id = ? and ${column} = ?)
         insert into project_grants (project_id, user_id, group_id, department_id, tier, granted_by_id)
         values (?, ?, ?, ?, ?, ?)
         on conflict (project_id, ${column}) do update set tier = excluded.tier, updated_at = now()
         returning id, (xmax = 0) as inserted, (select tier from previous) as previous_tier`,
        [
          projectId,
          input.targetId,
          projectId,
          target.userId,
          target.groupId,
          target.departmentId,
          input.tier,
          actor.system ? null : actor.id,
        ],
      );
      // spec rule 3: a user grant also puts the user on the visible member list
      if (target.userId) {
        await query(tx, `insert into project_members (project_id, user_id) values (?, ?) on conflict do nothing`, [
          projectId,
          target.userId,
        ]);
      }
      const changed = !row.inserted && row.previous_tier !== null && row.previous_tier !== input.tier;
      await this.audit.record(tx, actor, {
        action: row.inserted ? 'grant_created' : 'grant_updated',
        projectId,
        targetType: input.targetType,
        targetId: input.targetId,
        metadata: { tier: input.tier, ...(changed ? { previousTier: row.previous_tier! } : {}) },
      });
      const [grant] = await readGrants(tx, 'g.id = ?', [row.id]);
      return { grant, action: row.inserted ? 'created' : 'updated' };
    });
  }

  /** `use` tier. Every grant of the project with its target populated, oldest first. */
  async list(actor: Actor, projectId: string): Promise<GrantRow[]> {
    return one(await this.listMany(actor, [projectId]), projectId);
  }

  /** `use` tier on each project: the grants of many projects in two queries (access, then grants). */
  async listMany(actor: Actor, projectIds: readonly string[]): Promise<Batch<GrantRow[]>> {
    const em = this.em();
    return listPerProject(
      em,
      actor,
      projectIds,
      (allowed) => readGrants(em, 'g.project_id = any(array[?]::uuid[])', [allowed]),
      (g) => g.project_id,
    );
  }

  /** `full` tier. Deletes one grant of the project and records it, in one transaction. */
  async delete(actor: Actor, projectId: string, grantId: string): Promise<{ id: string }> {
    return this.em().transactional(async (tx) => {
      await requireTier(tx, actor, projectId, 'full');
      if (!isUuid(grantId)) throw new NotFoundError('not_found', 'Grant not found');
      const rows: Array<{ user_id: string | null; group_id: string | null; department_id: string | null; tier: Tier }> = await query(
        tx,
        `delete from project_grants where id = ? and project_id = ? returning user_id, group_id, department_id, tier`,
        [grantId, projectId],
      );
      if (!rows.length) throw new NotFoundError('not_found', 'Grant not found');
      const g = rows[0];
      const targetType: TargetType = g.user_id ? 'user' : g.group_id ? 'group' : 'department';
      await this.audit.record(tx, actor, {
        action: 'grant_deleted',
        projectId,
        targetType,
        targetId: (g.user_id ?? g.group_id ?? g.department_id)!,
        metadata: { tier: g.tier },
      });
      return { id: grantId };
    });
  }

  /** Admin or superadmin. The grants that reach a user directly, through groups, and through the department. */
  async byUser(actor: Actor, userId: string): Promise<GrantsByUser> {
    gates.requirePlatformAdmin(actor);
    if (!isUuid(userId)) throw new NotFoundError('not_found', 'User not found');
    const em = this.em();
    const users: Array<{ department_id: string | null }> = await query(em, `select department_id from users where id = ?`, [userId]);
    if (!users.length) throw new NotFoundError('not_found', 'User not found');
    const rows = await this.grantsReaching(em, userId, users[0].department_id);
    return {
      direct: rows.filter((r) => r.via === 'user'),
      viaGroup: rows.filter((r) => r.via === 'group'),
      viaDepartment: rows.filter((r) => r.via === 'department'),
    };
  }

  /**
   * GET /projects/:projectId/access/:userId (full tier, like grants): the tier and source the access
   * resolver gives that user on the project, or nulls when it gives nothing.
   */
  async effectiveAccess(actor: Actor, projectId: string, userId: string): Promise<EffectiveAccess> {
    const em = this.em();
    const { project } = await requireTier(em, actor, projectId, 'full');
    if (!isUuid(userId)) throw new NotFoundError('not_found', 'User not found');
    const users: ActorRow[] = await query(em, `select ${ACTOR_COLUMNS} from users where id = ?`, [userId]);
    if (!users.length) throw new NotFoundError('not_found', 'User not found');
    const access = await accessTo(em, actorFromRow(users[0]), project);
    return { projectId, userId, tier: access?.tier ?? null, source: access?.source ?? null };
  }

  private grantsReaching(em: EntityManager, userId: string, departmentId: string | null): Promise<UserGrantRow[]> {
    return query(
      em,
      `select g.id as grant_id, g.project_id, g.tier,
              case when g.user_id is not null then 'user' when g.group_id is not null then 'group' else 'department' end as via,
              p.name as project_name, p.color as project_color, p.is_private as project_is_private, p.owner_id as project_owner_id,
              gr.id as group_id, gr.name as group_name,
              d.id as department_id, d.name as department_name, d.color as department_color
         from project_grants g
         join projects p on p.id = g.project_id
         left join groups gr on gr.id = g.group_id
         left join departments d on d.id = g.department_id
        where g.user_id = ?
           or g.group_id in (select gm.group_id from group_members gm where gm.user_id = ?)
           or (g.department_id is not null and g.department_id = ?)
        order by p.name, p.id, g.id`,
      [userId, userId, departmentId],
    );
  }
}
