import { Arg, Ctx, FieldResolver, ID, Resolver, Root } from 'type-graphql';
import { SignedInQuery, SignedInMutation } from '../auth-checker';
import { granterView } from '../../../access/view-rules';
import { presentGrant, presentGrantsByUser } from '../../../presenters/grant.presenter';
import { UpsertGrantInput } from '../../../services/grants.inputs';
import { GraphqlContext } from '../context';
import { Caller, ValidArg } from '../params';
import { DeleteResultType } from '../types/common.type';
import { GrantResultType, GrantsByUserType, ProjectGrantType } from '../types/grant.type';
import { ProjectType } from '../types/project.type';
import { UserType } from '../types/user.type';
import type { GraphProjectDto } from '../../../presenters/project.presenter';
import type { GraphGrantsByUserDto } from '../../../presenters/grant.presenter';
import type { DeleteResultDto, GrantDto, MemberUserDto, ProjectMemberDto } from '../../../presenters/dto.generated';

@Resolver(() => ProjectGrantType)
export class GrantResolver {
  @SignedInQuery(() => [ProjectGrantType], { description: 'GET /projects/:projectId/grants (use tier)' })
  async projectGrants(@Arg('projectId', () => ID) projectId: string, @Caller() { actor, services }: Caller): Promise<GrantDto[]> {
    return (await services.grants.list(actor, projectId)).map(presentGrant);
  }

  @SignedInMutation(() => GrantResultType, { description: 'POST /projects/:projectId/grants (full tier): an upsert on (project, target)' })
  async upsertGrant(
    @Arg('projectId', () => ID) projectId: string,
    @ValidArg('input', UpsertGrantInput) input: UpsertGrantInput,
    @Caller() { actor, services }: Caller,
  ): Promise<{ grant: GrantDto; action: 'created' | 'updated' }> {
    const { grant, action } = await services.grants.upsert(actor, projectId, input);
    return { grant: presentGrant(grant), action };
  }

  @SignedInMutation(() => DeleteResultType, { description: 'DELETE /projects/:projectId/grants/:grantId (full tier)' })
  async deleteGrant(
    @Arg('projectId', () => ID) projectId: string,
    @Arg('grantId', () => ID) grantId: string,
    @Caller() { actor, services }: Caller,
  ): Promise<DeleteResultDto> {
    return { success: true, ...(await services.grants.delete(actor, projectId, grantId)) };
  }

  @SignedInQuery(() => GrantsByUserType, { description: 'GET /grants/by-user/:userId (admin, superadmin)' })
  async grantsByUser(@Arg('userId', () => ID) userId: string, @Caller() { actor, services }: Caller): Promise<GraphGrantsByUserDto> {
    return presentGrantsByUser(await services.grants.byUser(actor, userId));
  }

  @FieldResolver(() => ProjectType, { description: 'The project (readable by whoever can read its grants)' })
  async project(@Root() g: ProjectGrantType, @Ctx() ctx: GraphqlContext): Promise<GraphProjectDto> {
    return ctx.loaders.projects.load(g.projectId);
  }

  /** The granter's user, as far as `granterView` (access/view-rules.ts) lets the caller see it. */
  @FieldResolver(() => UserType, { nullable: true })
  async grantedBy(@Root() g: ProjectGrantType, @Caller() { actor, loaders }: Caller): Promise<MemberUserDto | null> {
    const granterId = g.grantedById;
    if (!granterId) return null;
    const members = async (): Promise<ProjectMemberDto[]> => (await loaders.projects.load(g.projectId)).members;
    if ((await granterView(actor, granterId, async () => (await members()).map((m) => m.userId))) === 'full')
      return loaders.users.load(granterId);
    return (await members()).find((m) => m.userId === granterId)!.user;
  }
}
