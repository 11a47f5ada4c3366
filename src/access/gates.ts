import { ForbiddenError } from '../errors';
import type { Actor } from './actor';

/**
 * Platform-role gates (spec "Role gates"). The superadmin passes every gate.
 * Each returns normally or throws ForbiddenError; callers use them as a service's first line.
 */
export const gates = {
  isPlatformAdmin(actor: Actor): boolean {
    return actor.platformRole === 'admin' || actor.platformRole === 'superadmin';
  },

  isProviderAdmin(actor: Actor): boolean {
    return actor.platformRole === 'engineer' || actor.platformRole === 'superadmin';
  },

  isCeo(actor: Actor): boolean {
    return actor.orgPosition === 'ceo';
  },

  /** A department manager: orgPosition manager and a member of that department (spec rule 2). */
  isManagerOf(actor: Actor, departmentId: string | null | undefined): boolean {
    return !!departmentId && actor.orgPosition === 'manager' && actor.departmentId === departmentId;
  },

  isAnyManager(actor: Actor): boolean {
    return actor.orgPosition === 'manager' && !!actor.departmentId;
  },

  /** Users CRUD, department create/delete/member add, grants by user, audit log, project create. */
  requirePlatformAdmin(actor: Actor): void {
    if (!gates.isPlatformAdmin(actor)) throw new ForbiddenError('forbidden', 'requires platform role admin or superadmin');
  },

  /** Provider administration and provider tests. An admin is refused. */
  requireProviderAdmin(actor: Actor): void {
    if (!gates.isProviderAdmin(actor)) throw new ForbiddenError('forbidden', 'requires platform role engineer or superadmin');
  },

  /** Department read: admin, superadmin, the CEO, a department manager (their own department). */
  requireDepartmentReader(actor: Actor, departmentId?: string): void {
    if (gates.isPlatformAdmin(actor) || gates.isCeo(actor)) return;
    if (departmentId === undefined ? gates.isAnyManager(actor) : gates.isManagerOf(actor, departmentId)) return;
    throw new ForbiddenError('forbidden', 'requires admin, superadmin, the CEO or the department manager');
  },

  /** Department update: admin, superadmin or that department's manager. */
  requireDepartmentEditor(actor: Actor, departmentId: string): void {
    if (gates.isPlatformAdmin(actor) || gates.isManagerOf(actor, departmentId)) return;
    throw new ForbiddenError('forbidden', "requires admin, superadmin or the department's manager");
  },

  /** Removing a department member: admin, superadmin, that department's manager, or the CEO. */
  requireDepartmentMemberRemover(actor: Actor, departmentId: string): void {
    if (gates.isPlatformAdmin(actor) || gates.isCeo(actor) || gates.isManagerOf(actor, departmentId)) return;
    throw new ForbiddenError('forbidden', "requires admin, superadmin, the CEO or the department's manager");
  },

  /** Group read: admin, superadmin, the CEO, the manager of the group's department. */
  requireGroupReader(actor: Actor, departmentId?: string): void {
    gates.requireDepartmentReader(actor, departmentId);
  },

  /** Group write: admin, superadmin, the manager of the group's department. */
  requireGroupEditor(actor: Actor, departmentId: string): void {
    gates.requireDepartmentEditor(actor, departmentId);
  },

  /** Before a group is loaded: callers who could edit some group (admin, superadmin, any manager), so others learn nothing about which ids exist. */
  requireSomeGroupEditor(actor: Actor): void {
    if (gates.isPlatformAdmin(actor) || gates.isAnyManager(actor)) return;
    throw new ForbiddenError('forbidden', "requires admin, superadmin or the department's manager");
  },
};
