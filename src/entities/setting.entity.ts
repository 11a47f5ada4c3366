import { Entity, Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { DefaultNow } from './columns';

/**
 * Deployment-wide values every node must agree on (the generated JWT secret and key-encryption
 * key when the environment gives none). Written once with `insert … on conflict do nothing`.
 */
@Entity({ tableName: 'settings' })
export class Setting {
  @PrimaryKey({ type: 'text' })
  key!: string;

  @Property({ type: 'text' })
  value!: string;

  @DefaultNow()
  createdAt: Date & Opt = new Date();
}

/**
 * The counters of the login rate limits, shared by every node. The table's shape is the one
 * `rate-limiter-flexible`'s PostgreSQL store expects (it is told the table exists).
 */
@Entity({ tableName: 'rate_limits' })
export class RateLimitCounter {
  @PrimaryKey({ type: 'varchar', length: 255 })
  key!: string;

  @Property({ type: 'integer', default: 0 })
  points: number & Opt = 0;

  /** Epoch milliseconds; null = never expires. */
  @Property({ type: 'bigint', nullable: true })
  expire?: string | null;
}
