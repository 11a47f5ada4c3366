import { Entity, Index, Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { DefaultNow } from './columns';
import { UserOwned } from './user.entity';

/** Server-side record of an issued refresh token (its jti), so rotation and logout can revoke it. */
@Entity({ tableName: 'refresh_tokens' })
@Index({ name: 'refresh_tokens_family_idx', properties: ['familyId'] })
export class RefreshToken extends UserOwned {
  @PrimaryKey({ type: 'uuid' })
  id!: string;

  /** Every rotation of one login shares a family; reuse of a rotated token revokes the family. */
  @Property({ type: 'uuid' })
  familyId!: string;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt?: Date | null;

  @Property({ type: 'uuid', nullable: true })
  replacedBy?: string | null;

  @DefaultNow()
  createdAt: Date & Opt = new Date();
}
