import { IsInt, Max, Min } from 'class-validator';
import { ArgsType, ClassType, Field, ID, Int, ObjectType } from 'type-graphql';

export const PAGE_DEFAULT_LIMIT = 50;
export const PAGE_MAX_LIMIT = 200;

/** limit/offset for lists that can grow; validated with the same parse() as every input. */
@ArgsType()
export class PageArgs {
  @Field(() => Int, { defaultValue: PAGE_DEFAULT_LIMIT })
  @IsInt()
  @Min(1)
  @Max(PAGE_MAX_LIMIT)
  limit: number = PAGE_DEFAULT_LIMIT;

  @Field(() => Int, { defaultValue: 0 })
  @IsInt()
  @Min(0)
  @Max(2_147_483_647)
  offset: number = 0;
}

/** A department's or group's member: `removeGroupMember(id, userId)`. */
@ArgsType()
export class MemberArgs {
  @Field(() => ID) id!: string;
  @Field(() => ID) userId!: string;
}

/** A user on a project: `removeProjectMember(projectId, userId)`, `effectiveAccess(projectId, userId)`. */
@ArgsType()
export class ProjectUserArgs {
  @Field(() => ID) projectId!: string;
  @Field(() => ID) userId!: string;
}

/** What a page field resolves to. */
export interface PageOf<T> {
  items: T[];
  total: number;
}

/** A page of a list: the items and the total matching (across all pages). */
export function Page<T extends object>(item: ClassType<T>, name: string) {
  @ObjectType(`${name}Page`)
  abstract class PageType {
    @Field(() => [item]) items!: T[];
    @Field(() => Int) total!: number;
  }
  return PageType;
}

/** A page the service read (`{ items, total }`), its items presented. */
export function presentPage<View, Dto>({ items, total }: PageOf<View>, present: (view: View) => Dto): PageOf<Dto> {
  return { items: items.map(present), total };
}

/** Slices a list the service returns whole. */
export function pageOf<T>(all: T[], page: PageArgs): PageOf<T> {
  return { items: all.slice(page.offset, page.offset + page.limit), total: all.length };
}

/** A field holding an ISO timestamp; `nullable` where a view may lack it or it may be unset. */
export function Timestamp(options: { nullable?: boolean } = {}): PropertyDecorator & MethodDecorator {
  return Field(() => String, { ...options, description: 'ISO timestamp' });
}

/** `{success: true, id}`, what REST deletes answer. */
@ObjectType('DeleteResult')
export class DeleteResultType {
  @Field() success!: boolean;
  @Field(() => ID) id!: string;
}
