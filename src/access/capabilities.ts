import type { CapabilitiesDto, DepartmentScopeDto } from '../presenters/dto.generated';
import type { Actor } from './actor';
import { gates } from './gates';

/** Departments an action reaches: every one (`all`), else those listed (a manager's own). */
export type DepartmentScope = DepartmentScopeDto;

/**
 * What the caller may do in the organisation, said by the server so clients show what it allows
 * and hide what it refuses without re-deriving a rule (issue 37). Computed from the actor alone
 * (no query), from the same gates the services call, so it cannot say yes where a service says no
 * (test/unit/access-rules.test.ts checks each field against its gate). The shape is the wire's
 * (presenters/schemas.ts `Capabilities`).
 */
export type Capabilities = CapabilitiesDto;

const passes = (gate: () => void): boolean => {
  try {
    gate();
    return true;
  } catch {
    return false;
  }
};

/** A scope from a gate over departments: `all` when the gate passes for any department, else the caller's own when it passes there. */
function scope(actor: Actor, everywhere: boolean, gate: (departmentId: string) => void): DepartmentScope {
  if (everywhere) return { all: true, departmentIds: [] };
  const own = actor.departmentId;
  return { all: false, departmentIds: own && passes(() => gate(own)) ? [own] : [] };
}

export function capabilitiesOf(actor: Actor): Capabilities {
  const admin = gates.isPlatformAdmin(actor);
  const seesAll = admin || gates.isCeo(actor);
  return {
    manageUsers: admin,
    changePlatformRoles: actor.platformRole === 'superadmin',
    createProjects: admin,
    readAuditLog: admin,
    listFeedback: admin,
    manageProviders: gates.isProviderAdmin(actor),
    departments: {
      read: scope(actor, seesAll, (d) => gates.requireDepartmentReader(actor, d)),
      create: admin,
      delete: admin,
      addMembers: admin,
      edit: scope(actor, admin, (d) => gates.requireDepartmentEditor(actor, d)),
      removeMembers: scope(actor, seesAll, (d) => gates.requireDepartmentMemberRemover(actor, d)),
    },
    groups: {
      read: scope(actor, seesAll, (d) => gates.requireGroupReader(actor, d)),
      edit: scope(actor, admin, (d) => gates.requireGroupEditor(actor, d)),
    },
  };
}
