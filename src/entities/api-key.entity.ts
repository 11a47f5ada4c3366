import { Entity, ManyToOne, Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { DefaultNow } from './columns';
import type { Tier } from './base';
import { UserOwned } from './user.entity';

/**
 * A key for programs (issue 38): a bearer secret `dq_…` of which only the SHA-256 is stored. It acts
 * as its owner, capped by `tier` and limited to `projectIds` when set (src/access/keys.ts). The
 * per-minute counter (`windowStartedAt`, `windowCount`) is its rate limit, kept in its row so one
 * statement authenticates and counts a request on any node.
 */
@Entity({ tableName: 'api_keys' })
export class ApiKey extends UserOwned {
  @PrimaryKey({ type: 'uuid', defaultRaw: 'gen_random_uuid()' })
  id!: string & Opt;

  @Property({ type: 'text' })
  name!: string;

  /** The secret's first characters, to recognise a key in a list. */
  @Property({ type: 'text' })
  prefix!: string;

  @Property({ type: 'text', unique: 'api_keys_secret_hash_unique', hidden: true })
  secretHash!: string;

  /** Null: every project the owner reaches. */
  @Property({ type: 'uuid[]', nullable: true })
  projectIds?: string[] | null;

  @Property({ type: 'text', default: 'full' })
  tier: Tier & Opt = 'full';

  /** Created by an admin with `platform: true`: keeps its owner's platform role and org position. */
  @Property({ type: 'boolean', default: false })
  platform: boolean & Opt = false;

  @Property({ type: 'timestamptz', nullable: true })
  expiresAt?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  lastUsedAt?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  windowStartedAt?: Date | null;

  @Property({ type: 'integer', default: 0 })
  windowCount: number & Opt = 0;

  @DefaultNow()
  createdAt: Date & Opt = new Date();
}

/** The addresses a key has been used from (a new one is audited). */
@Entity({ tableName: 'api_key_addresses' })
export class ApiKeyAddress {
  @ManyToOne(() => ApiKey, { deleteRule: 'cascade', primary: true })
  key!: ApiKey;

  @PrimaryKey({ type: 'text' })
  address!: string;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  firstSeenAt: Date & Opt = new Date();
}
