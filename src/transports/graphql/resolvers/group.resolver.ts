import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { presentGroup } from '../../../presenters/group.presenter';
import { CreateGroupInput, GroupMembersInput, ListGroupsQuery, UpdateGroupInput } from '../../../services/groups.inputs';
import type { GroupView } from '../../../services/groups.service';
import { parse } from '../../../validation';
import { actorOf, GraphqlContext } from '../context';
import { DeleteResultType, PageArgs, pageOf } from '../types/common.type';
import { GroupPage, GroupType } from '../types/group.type';
import { UserType } from '../types/user.type';

const present = (v: GroupView) => presentGroup(v.group, v);

@Authorized()
@Resolver(() => GroupType)
export class GroupResolver {
  @Query(() => GroupPage, { description: "GET /groups (admin, superadmin, the CEO; a manager sees their department's)" })
  async groups(@Arg('filter', () => ListGroupsQuery, { nullable: true }) filter: ListGroupsQuery | undefined, @Args(() => PageArgs) page: PageArgs, @Ctx() ctx: GraphqlContext) {
    const p = await parse(PageArgs, page);
    return pageOf((await ctx.services.groups.list(actorOf(ctx), await parse(ListGroupsQuery, filter ?? {}))).map(present), p);
  }

  @Query(() => GroupType, { description: 'GET /groups/:id' })
  async group(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphqlContext) {
    return present(await ctx.services.groups.get(actorOf(ctx), id));
  }

  @Mutation(() => GroupType, { description: "POST /groups (admin, superadmin, the department's manager)" })
  async createGroup(@Arg('input', () => CreateGroupInput) input: CreateGroupInput, @Ctx() ctx: GraphqlContext) {
    return present(await ctx.services.groups.create(actorOf(ctx), await parse(CreateGroupInput, input)));
  }

  @Mutation(() => GroupType, { description: 'PATCH /groups/:id' })
  async updateGroup(@Arg('id', () => ID) id: string, @Arg('input', () => UpdateGroupInput) input: UpdateGroupInput, @Ctx() ctx: GraphqlContext) {
    return present(await ctx.services.groups.update(actorOf(ctx), id, await parse(UpdateGroupInput, input)));
  }

  @Mutation(() => DeleteResultType, { description: 'DELETE /groups/:id (409 while grants target it)' })
  async deleteGroup(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphqlContext) {
    return { success: true, ...(await ctx.services.groups.delete(actorOf(ctx), id)) };
  }

  @Mutation(() => GroupType, { description: "POST /groups/:id/members: users of the group's department" })
  async addGroupMembers(@Arg('id', () => ID) id: string, @Arg('input', () => GroupMembersInput) input: GroupMembersInput, @Ctx() ctx: GraphqlContext) {
    return present(await ctx.services.groups.addMembers(actorOf(ctx), id, await parse(GroupMembersInput, input)));
  }

  @Mutation(() => DeleteResultType, { description: 'DELETE /groups/:id/members/:userId' })
  async removeGroupMember(@Arg('id', () => ID) id: string, @Arg('userId', () => ID) userId: string, @Ctx() ctx: GraphqlContext) {
    return { success: true, ...(await ctx.services.groups.removeMember(actorOf(ctx), id, userId)) };
  }

  @FieldResolver(() => [UserType], { nullable: true, description: 'The members, by name (group readers)' })
  async members(@Root() g: GroupType & { members?: UserType[] }, @Ctx() ctx: GraphqlContext) {
    return g.members ?? (await ctx.loaders.groups.load(g.id)).members;
  }
}
