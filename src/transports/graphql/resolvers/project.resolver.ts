import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { SignedInQuery, SignedInMutation } from '../auth-checker';
import { presentProjectDetail, presentProjectListItem } from '../../../presenters/project.presenter';
import { CreateProjectInput, UpdateProjectInput } from '../../../services/projects.inputs';
import { crudResolver } from '../crud';
import { GraphqlContext } from '../context';
import { Caller, ValidArgs } from '../params';
import { PageArgs, ProjectUserArgs } from '../types/common.type';
import { AccessSourceEnum, TierEnum } from '../types/enums';
import { ConversationType } from '../types/chat.type';
import { DocumentType } from '../types/document.type';
import { ProjectGrantType } from '../types/grant.type';
import { ProjectCountsType, ProjectMemberType, ProjectPage, ProjectType, RemoveMemberResultType } from '../types/project.type';
import { presentPage, type PageOf } from '../types/common.type';
import type { GraphConversationSummaryDto } from '../../../presenters/conversation.presenter';
import type { DocumentDto, GrantDto, ProjectListItemDto, ProjectMemberDto } from '../../../presenters/dto.generated';

/** What reaches Project's field resolvers: a presented project, with whatever its view carried. */
type ProjectRoot = ProjectType & {
  members?: ProjectMemberType[];
  _count?: { documents: number; conversations: number; chunks?: number };
  accessTier?: string;
  accessSource?: string;
};

@Resolver(() => ProjectType)
export class ProjectResolver extends crudResolver({
  name: 'Project',
  type: ProjectType,
  create: CreateProjectInput,
  update: UpdateProjectInput,
  calls: (s) => s.projects,
  present: presentProjectDetail,
  describe: {
    get: 'GET /projects/:id (any tier)',
    create: 'POST /projects (admin, superadmin)',
    update: 'PATCH /projects/:id (edit tier; ownerId needs full)',
    delete: 'DELETE /projects/:id (full tier)',
  },
}) {
  @SignedInQuery(() => ProjectPage, { description: 'GET /projects: the projects the caller can access' })
  async projects(@ValidArgs(PageArgs) page: PageArgs, @Caller() { actor, services }: Caller): Promise<PageOf<ProjectListItemDto>> {
    return presentPage(await services.projects.list(actor, page), presentProjectListItem);
  }

  @SignedInMutation(() => RemoveMemberResultType, { description: 'DELETE /projects/:id/members/:userId (edit tier; grants stay)' })
  async removeProjectMember(
    @Args() { projectId, userId }: ProjectUserArgs,
    @Caller() { actor, services }: Caller,
  ): Promise<{ projectId: string; userId: string; success: boolean }> {
    return { success: true, ...(await services.projects.removeMember(actor, projectId, userId)) };
  }

  // These answer from the parent when its read already carried the value (the list does), with no
  // promise per project; otherwise from the batched full read.
  @FieldResolver(() => [ProjectMemberType], { description: 'The visible member list (any tier)' })
  members(@Root() p: ProjectRoot, @Ctx() ctx: GraphqlContext): Promise<ProjectMemberDto[]> | ProjectMemberType[] {
    return p.members ?? ctx.loaders.projects.load(p.id).then((v) => v.members);
  }

  @FieldResolver(() => [ProjectGrantType], { description: 'GET /projects/:id/grants (use tier)' })
  grants(@Root() p: ProjectRoot, @Ctx() ctx: GraphqlContext): Promise<GrantDto[]> {
    return ctx.loaders.grants.load(p.id);
  }

  @FieldResolver(() => ProjectCountsType, { description: 'REST `_count`, always with chunks' })
  counts(
    @Root() p: ProjectRoot,
    @Ctx() ctx: GraphqlContext,
  ): { documents: number; conversations: number; chunks?: number } | Promise<{ documents: number; conversations: number; chunks: number }> {
    return p._count?.chunks !== undefined ? p._count : ctx.loaders.projects.load(p.id).then((v) => v._count);
  }

  @FieldResolver(() => TierEnum, { description: "The caller's tier on the project" })
  accessTier(@Root() p: ProjectRoot, @Ctx() ctx: GraphqlContext): string | Promise<'use' | 'edit' | 'full'> {
    return p.accessTier ?? ctx.loaders.projects.load(p.id).then((v) => v.accessTier);
  }

  @FieldResolver(() => AccessSourceEnum, { description: 'Why the caller holds that tier' })
  accessSource(
    @Root() p: ProjectRoot,
    @Ctx() ctx: GraphqlContext,
  ): string | Promise<'user' | 'platform' | 'owner' | 'group' | 'department' | 'public'> {
    return p.accessSource ?? ctx.loaders.projects.load(p.id).then((v) => v.accessSource);
  }

  @FieldResolver(() => [DocumentType], { description: 'GET /projects/:projectId/documents (use tier), newest first' })
  async documents(@Root() p: ProjectRoot, @Ctx() ctx: GraphqlContext): Promise<DocumentDto[]> {
    return ctx.loaders.documents.load(p.id);
  }

  @FieldResolver(() => [ConversationType], { description: "The caller's own conversations in the project, newest first" })
  async conversations(@Root() p: ProjectRoot, @Ctx() ctx: GraphqlContext): Promise<GraphConversationSummaryDto[]> {
    return ctx.loaders.projectConversations.load(p.id);
  }
}
