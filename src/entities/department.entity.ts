import { Entity, Opt, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { newId } from './base';

@Entity({ tableName: 'departments' })
export class Department {
  @PrimaryKey({ type: 'uuid', defaultRaw: 'gen_random_uuid()' })
  id: string = newId();

  @Property({ type: 'text' })
  @Unique({ name: 'departments_name_unique' })
  name!: string;

  @Property({ type: 'text' })
  color: string & Opt = '#64748b';

  @Property({ type: 'text' })
  description: string & Opt = '';

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
