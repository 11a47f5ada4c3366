import { Entity, Enum, ManyToOne, Opt, Property, Unique } from '@mikro-orm/core';
import { TimestampedEntity } from './columns';
import { ORG_POSITIONS, OrgPosition, PLATFORM_ROLES, PlatformRole, USER_STATUSES, UserStatus } from './base';
import { Department } from './department.entity';

@Entity({ tableName: 'users' })
// spec: at most one CEO and one superadmin — enforced by the database, not only by code
@Unique({ name: 'users_single_ceo', expression: `create unique index "users_single_ceo" on "users" ((1)) where "org_position" = 'ceo'` })
@Unique({
  name: 'users_single_superadmin',
  expression: `create unique index "users_single_superadmin" on "users" ((1)) where "platform_role" = 'superadmin'`,
})
export class User extends TimestampedEntity {
  /** Stored lower-cased; unique. */
  @Property({ type: 'text' })
  @Unique({ name: 'users_email_unique' })
  email!: string;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text', hidden: true, lazy: false })
  passwordHash!: string;

  @Enum({ items: () => PLATFORM_ROLES as unknown as string[], type: 'text' })
  platformRole: PlatformRole & Opt = 'none';

  @Enum({ items: () => ORG_POSITIONS as unknown as string[], type: 'text' })
  orgPosition: OrgPosition & Opt = 'member';

  @ManyToOne(() => Department, { nullable: true, deleteRule: 'restrict', index: true })
  department?: Department | null;

  @Property({ type: 'text' })
  avatarColor!: string;

  @Property({ type: 'text', nullable: true })
  avatarUrl?: string | null;

  @Enum({ items: () => USER_STATUSES as unknown as string[], type: 'text' })
  status: UserStatus & Opt = 'active';

  @Property({ type: 'timestamptz', nullable: true })
  lastLoginAt?: Date | null;
}

/** A row that is one user's own (a key, a refresh token, a chat stream) and goes when the user does. */
export abstract class UserOwned {
  @ManyToOne(() => User, { deleteRule: 'cascade', index: true })
  user!: User;
}
