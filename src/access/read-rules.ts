import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tier } from '../entities/base';
import { Project } from '../entities';
import { ForbiddenError, NotFoundError } from '../errors';
import { isUuid } from '../validation';
import type { Actor } from './actor';
import { gates } from './gates';
import { accessToProjects } from './project-access.sql';
import { tierAtLeast, type Access } from './resolver';
import { query } from '../db/sql';

/**
 * The set-based read rules: "which of these may the caller see", one function per area, each
 * answering every id at once (immich's `checkAccess(auth, ids) → allowed ids`). A service's
 * `getMany(actor, ids)` asks here first and reads only what is allowed, so REST's `get` (a
 * `getMany` of one id) and GraphQL's DataLoaders (a `getMany` of many) share one rule.
 *
 * Where a single read answers 403 or 404, the verdict is that error, per id, so a batch answers
 * each id exactly as a single read would.
 */
export type Verdicts<T = true> = Map<string, T | Error>;

const projectNotFound = () => new NotFoundError('not_found', 'Project not found');

/**
 * Projects: the caller's access to each id (the resolver's priority list in one SQL query), at
 * least `tier`; else 404 for a missing or malformed id, 403 when the resolver gives nothing or less.
 */
export async function checkProjectAccess(
  em: EntityManager,
  actor: Actor,
  ids: readonly string[],
  tier: Tier = 'use',
): Promise<Verdicts<Access>> {
  const valid = [...new Set(ids.filter(isUuid))];
  const access = await accessToProjects(em, actor, valid);
  const denied = valid.filter((id) => !access.has(id));
  // only ids the caller cannot reach need telling apart: missing (404) or not theirs (403)
  const existing = new Set<string>(
    denied.length
      ? (await query<{ id: string }>(em, `select id from projects where id = any(array[?]::uuid[])`, [denied])).map((r) => r.id)
      : [],
  );
  const out: Verdicts<Access> = new Map();
  for (const id of ids) {
    const a = access.get(id);
    if (a) out.set(id, tierAtLeast(a.tier, tier) ? a : new ForbiddenError('forbidden', `This requires the ${tier} tier on the project`));
    else out.set(id, existing.has(id) ? new ForbiddenError('forbidden', 'You have no access to this project') : projectNotFound());
  }
  return out;
}

/**
 * One project, at least `tier`: the same verdict as `checkProjectAccess` for one id (404 for a
 * missing or malformed id, 403 when the resolver gives nothing or too low a tier), thrown; then the
 * project, so nothing is used unchecked. Writes, documents and chat call this; reads of many call
 * `checkProjectAccess`.
 */
export async function requireTier(
  em: EntityManager,
  actor: Actor,
  projectId: string,
  tier: Tier,
): Promise<{ project: Project; access: Access }> {
  const verdict = (await checkProjectAccess(em, actor, [projectId], tier)).get(projectId)!;
  if (verdict instanceof Error) throw verdict;
  // deleted between the check and this read (a concurrent delete): as if it never was
  const project = await em.findOne(Project, { id: projectId });
  if (!project) throw projectNotFound();
  return { project, access: verdict };
}

/**
 * Users in full: platform admins read anyone (GET /users/:id); everybody else only themselves
 * (GET /users/me). Ids outside that reach are refused before anything is read, so they reveal nothing.
 */
export function checkUserAccess(actor: Actor, ids: readonly string[]): Verdicts {
  const out: Verdicts = new Map();
  const admin = gates.isPlatformAdmin(actor);
  for (const id of ids)
    out.set(id, admin || id === actor.id ? true : new ForbiddenError('forbidden', 'requires platform role admin or superadmin'));
  return out;
}

/**
 * Departments (and their members and groups): admin, superadmin, the CEO, or the manager of that
 * department. Malformed ids are 404 before the gate, as GET /departments/:id answers them.
 */
export function checkDepartmentAccess(actor: Actor, ids: readonly string[]): Verdicts {
  const out: Verdicts = new Map();
  for (const id of ids) {
    if (!isUuid(id)) out.set(id, new NotFoundError('not_found', 'Department not found'));
    else
      out.set(
        id,
        gateVerdict(() => gates.requireDepartmentReader(actor, id)),
      );
  }
  return out;
}

/**
 * Groups, once loaded with their department: readers of that department. Callers who could read
 * no group at all (see `groupReaderVerdict`) are refused before any group is loaded.
 */
export function checkGroupAccess(actor: Actor, groups: ReadonlyArray<{ id: string; departmentId: string }>): Verdicts {
  return new Map(groups.map((g) => [g.id, gateVerdict(() => gates.requireGroupReader(actor, g.departmentId))]));
}

/** Before any group is read: the caller could read some group (so others learn nothing about which ids exist). */
export function groupReaderVerdict(actor: Actor): true | Error {
  return gateVerdict(() => gates.requireGroupReader(actor));
}

/**
 * "Sees all" scoping of the department and group lists: admin, superadmin and the CEO see every
 * department; a manager sees their own. `null` means all; anyone else is refused.
 */
export function departmentListScope(actor: Actor): string | null {
  gates.requireDepartmentReader(actor);
  return gates.isPlatformAdmin(actor) || gates.isCeo(actor) ? null : actor.departmentId!;
}

/**
 * Conversations (GET /chat/conversations/:id): platform staff read any; the author reads their own
 * while they hold `use` on its project (else that project's 403). Anyone else gets 404, not 403,
 * so ids do not reveal that a conversation exists.
 */
export function checkConversationAccess(
  actor: Actor,
  conversations: ReadonlyArray<{ id: string; userId: string | null; projectId: string }>,
  projectAccess: Verdicts<Access>,
): Verdicts {
  const out: Verdicts = new Map();
  for (const c of conversations) {
    if (gates.isPlatformAdmin(actor)) out.set(c.id, true);
    else if (c.userId !== actor.id) out.set(c.id, new NotFoundError('not_found', 'Conversation not found'));
    else {
      const access = projectAccess.get(c.projectId);
      out.set(c.id, access instanceof Error ? access : access ? true : new NotFoundError('not_found', 'Conversation not found'));
    }
  }
  return out;
}

/** The projects whose access `checkConversationAccess` needs: those of the caller's own conversations (none for platform staff). */
export function conversationProjectsToCheck(
  actor: Actor,
  conversations: ReadonlyArray<{ userId: string | null; projectId: string }>,
): string[] {
  if (gates.isPlatformAdmin(actor)) return [];
  return [...new Set(conversations.filter((c) => c.userId === actor.id).map((c) => c.projectId))];
}

function gateVerdict(gate: () => void): true | Error {
  try {
    gate();
    return true;
  } catch (e) {
    return e as Error;
  }
}
