import { Arg, Args, Ctx, FieldResolver, ID, Resolver, Root } from 'type-graphql';
import { SignedInQuery, SignedInMutation } from '../auth-checker';
import { presentGroup } from '../../../presenters/group.presenter';
import { CreateGroupInput, GroupMembersInput, ListGroupsQuery, UpdateGroupInput } from '../../../services/groups.inputs';
import type { GroupView } from '../../../services/groups.service';
import { crudResolver } from '../crud';
import { GraphqlContext } from '../context';
import { Caller, FilterArg, ValidArg, ValidArgs } from '../params';
import { DeleteResultType, MemberArgs, PageArgs } from '../types/common.type';
import { GroupPage, GroupType } from '../types/group.type';
import { UserType } from '../types/user.type';
import { presentPage, type PageOf } from '../types/common.type';
import type { DeleteResultDto, GroupDto, UserSummaryDto } from '../../../presenters/dto.generated';

const present = (v: GroupView): GroupDto => presentGroup(v.group, v);

@Resolver(() => GroupType)
export class GroupResolver extends crudResolver({
  name: 'Group',
  type: GroupType,
  create: CreateGroupInput,
  update: UpdateGroupInput,
  calls: (s) => s.groups,
  present,
  describe: {
    get: 'GET /groups/:id',
    create: "POST /groups (admin, superadmin, the department's manager)",
    update: 'PATCH /groups/:id',
    delete: 'DELETE /groups/:id (409 while grants target it)',
  },
}) {
  @SignedInQuery(() => GroupPage, { description: "GET /groups (admin, superadmin, the CEO; a manager sees their department's)" })
  async groups(
    @FilterArg(ListGroupsQuery) filter: ListGroupsQuery,
    @ValidArgs(PageArgs) page: PageArgs,
    @Caller() { actor, services }: Caller,
  ): Promise<PageOf<GroupDto>> {
    return presentPage(await services.groups.list(actor, filter, page), present);
  }

  @SignedInMutation(() => GroupType, { description: "POST /groups/:id/members: users of the group's department" })
  async addGroupMembers(
    @Arg('id', () => ID) id: string,
    @ValidArg('input', GroupMembersInput) input: GroupMembersInput,
    @Caller() { actor, services }: Caller,
  ): Promise<GroupDto> {
    return present(await services.groups.addMembers(actor, id, input));
  }

  @SignedInMutation(() => DeleteResultType, { description: 'DELETE /groups/:id/members/:userId' })
  async removeGroupMember(@Args() { id, userId }: MemberArgs, @Caller() { actor, services }: Caller): Promise<DeleteResultDto> {
    return { success: true, ...(await services.groups.removeMember(actor, id, userId)) };
  }

  @FieldResolver(() => [UserType], { nullable: true, description: 'The members, by name (group readers)' })
  async members(
    @Root() g: GroupType & { members?: UserType[] },
    @Ctx() ctx: GraphqlContext,
  ): Promise<UserSummaryDto[] | UserType[] | undefined> {
    return g.members ?? (await ctx.loaders.groups.load(g.id)).members;
  }
}
