import type { OrgPosition, PlatformRole, UserStatus } from '../entities/base';

/** The authenticated caller, re-read from storage on every request (roles are never token claims). */
export interface Actor {
  id: string;
  email: string;
  name: string;
  platformRole: PlatformRole;
  orgPosition: OrgPosition;
  departmentId: string | null;
  status: UserStatus;
  avatarColor?: string;
  avatarUrl?: string | null;
  lastLoginAt?: Date | null;
  createdAt?: Date;
  /** True for background jobs acting on the system's behalf. */
  system?: boolean;
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
      system: true,
    };
  },
};
