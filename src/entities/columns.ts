import { Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from './base';

/**
 * The columns most tables share, declared once. A class below adds its own columns after these;
 * the tables are the same as when each entity listed them itself (column order aside, which the
 * schema diff does not weigh).
 */

/** A time column that starts at now(): the process's clock for an entity, the database's for SQL inserts. */
export const DefaultNow = () => Property({ type: 'timestamptz', defaultRaw: 'now()' });

/** A uuid key, drawn in the process (newId) so a new entity has it before it is flushed. */
export abstract class UuidEntity {
  @PrimaryKey({ type: 'uuid', defaultRaw: 'gen_random_uuid()' })
  id: string = newId();
}

/** A uuid key and the time the row was written. */
export abstract class CreatedEntity extends UuidEntity {
  @DefaultNow()
  createdAt: Date & Opt = new Date();
}

/** A uuid key, the time the row was written, and the time of its last change (the ORM sets it on every update). */
export abstract class TimestampedEntity extends CreatedEntity {
  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
