import { Entity, Opt, Property, Unique } from '@mikro-orm/core';
import { TimestampedEntity } from './columns';

@Entity({ tableName: 'departments' })
export class Department extends TimestampedEntity {
  @Property({ type: 'text' })
  @Unique({ name: 'departments_name_unique' })
  name!: string;

  @Property({ type: 'text' })
  color: string & Opt = '#64748b';

  @Property({ type: 'text' })
  description: string & Opt = '';
}
