import type { OrgPosition, PlatformRole, Tier, UserStatus } from '../entities/base';

/** The scope of the key a request was authenticated with (what it may reach: src/access/keys.ts). */
export interface KeyScope {
  id: string;
  /** The highest tier the key may use on any project. */
  tier: Tier;
  /** Null: every project the owner reaches; else only these. */
  projectIds: string[] | null;
  /** Created by an admin with `platform: true`: the owner's platform role and org position apply. */
  platform: boolean;
}

/** The authenticated caller, re-read from storage on every request (roles are never token claims). */
export interface Actor {
  id: string;
  email: string;
  name: string;
  platformRole: PlatformRole;
  orgPosition: OrgPosition;
  departmentId: string | null;
  status: UserStatus;
  avatarColor: string;
  avatarUrl: string | null;
  lastLoginAt: Date | null;
  createdAt: Date;
  /** True for background jobs acting on the system's behalf. */
  system?: boolean;
  /** Set when the request was authenticated with a key: its scope (src/access/keys.ts). */
  key?: KeyScope;
}

/** A `users` row as SQL returns it, with the columns an Actor is made of (select them with ACTOR_COLUMNS). */
export interface ActorRow {
  id: string;
  email: string;
  name: string;
  platform_role: PlatformRole;
  org_position: OrgPosition;
  department_id: string | null;
  status: UserStatus;
  avatar_color: string;
  avatar_url: string | null;
  last_login_at: Date | null;
  created_at: Date;
}

/** The `users` columns of an ActorRow, for a select list. */
export const ACTOR_COLUMNS =
  'id, email, name, platform_role, org_position, department_id, status, avatar_color, avatar_url, last_login_at, created_at';

/** The one place a stored user becomes an Actor. */
export function actorFromRow(u: ActorRow): Actor {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    platformRole: u.platform_role,
    orgPosition: u.org_position,
    departmentId: u.department_id,
    status: u.status,
    avatarColor: u.avatar_color,
    avatarUrl: u.avatar_url,
    lastLoginAt: u.last_login_at,
    createdAt: u.created_at,
  };
}

export const Actor = {
  /** The caller used by background jobs. */
  system(): Actor {
    return {
      id: '00000000-0000-0000-0000-000000000000',
      email: 'system@docqa.local',
      name: 'system',
      platformRole: 'superadmin',
      orgPosition: 'member',
      departmentId: null,
      status: 'active',
      avatarColor: '#64748b',
      avatarUrl: null,
      lastLoginAt: null,
      createdAt: new Date(0),
      system: true,
    };
  },
};
