import { Entity, ManyToOne, Opt, Property, Unique } from '@mikro-orm/core';
import { TimestampedEntity } from './columns';
import { Department } from './department.entity';
import { User } from './user.entity';

@Entity({ tableName: 'groups' })
@Unique({ name: 'groups_department_name_unique', properties: ['department', 'name'] })
export class Group extends TimestampedEntity {
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  description: string & Opt = '';

  // a department with groups cannot be deleted (spec: 409 blocker)
  @ManyToOne(() => Department, { deleteRule: 'restrict', index: true })
  department!: Department;
}

@Entity({ tableName: 'group_members' })
export class GroupMember {
  @ManyToOne(() => Group, { primary: true, deleteRule: 'cascade' })
  group!: Group;

  @ManyToOne(() => User, { primary: true, deleteRule: 'cascade', index: true })
  user!: User;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  addedAt: Date & Opt = new Date();
}
