import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { FromView } from '../view';
import { Page, Timestamp } from './common.type';
import { UserType } from './user.type';

@ObjectType('ProjectSettings')
export class ProjectSettingsType {
  @Field(() => String, { nullable: true }) model?: string;
  @Field(() => Float, { nullable: true }) temperature?: number;
  @Field(() => Int, { nullable: true }) topK?: number;
  @Field(() => String, { nullable: true }) embeddingModel?: string;
  @Field(() => String, { nullable: true }) rerankModel?: string;
}

/** REST's `_count` (the list has documents and conversations; the detail adds chunks). */
@ObjectType('ProjectCounts')
export class ProjectCountsType {
  @Field(() => Int) documents!: number;
  @Field(() => Int) conversations!: number;
  @Field(() => Int) chunks!: number;
}

/** A visible member (legacy list; access is decided by grants). */
@ObjectType('ProjectMember')
export class ProjectMemberType {
  @Field(() => ID) projectId!: string;
  @Field(() => ID) userId!: string;
  @Timestamp() addedAt!: string;
  @Field(() => UserType) user!: UserType;
}

/**
 * A project the caller can access. Relations (members, grants, documents, conversations, counts)
 * and the caller's access are resolved per field through batched loaders with the REST rules.
 */
@ObjectType('Project')
export class ProjectType {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field() color!: string;
  @Field() isPrivate!: boolean;
  @Field(() => String, { nullable: true }) ownerId!: string | null;
  @Field(() => String, { nullable: true }) @FromView() description?: string | null;
  @Field(() => String, { nullable: true }) @FromView() instructions?: string;
  @Field(() => ProjectSettingsType, { nullable: true }) @FromView() settings?: ProjectSettingsType;
  @Field(() => String, { nullable: true }) @FromView() createdBy?: string | null;
  @Timestamp({ nullable: true }) @FromView() createdAt?: string;
  @Timestamp({ nullable: true }) @FromView() updatedAt?: string;
}

export const ProjectPage = Page(ProjectType, 'Project');

@ObjectType('RemoveMemberResult')
export class RemoveMemberResultType {
  @Field() success!: boolean;
  @Field(() => ID) projectId!: string;
  @Field(() => ID) userId!: string;
}
