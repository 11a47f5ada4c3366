import { Arg, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { presentUser } from '../../../presenters/user.presenter';
import { CreateUserInput, ListUsersQuery, UpdateUserInput } from '../../../services/users.inputs';
import { parse } from '../../../validation';
import { actorOf, GraphqlContext } from '../context';
import { DeleteResultType } from '../types/common.type';
import { ProjectType } from '../types/project.type';
import { UserPage, UserType } from '../types/user.type';

@Authorized()
@Resolver(() => UserType)
export class UserResolver {
  @Query(() => UserPage, { description: 'GET /users (admin, superadmin): filters, literal search, limit/offset and total' })
  async users(@Arg('filter', () => ListUsersQuery, { nullable: true }) filter: ListUsersQuery | undefined, @Ctx() ctx: GraphqlContext) {
    const { users, total } = await ctx.services.users.list(actorOf(ctx), await parse(ListUsersQuery, filter ?? {}));
    return { items: users.map(presentUser), total };
  }

  @Query(() => UserType, { description: 'GET /users/:id (admin, superadmin)' })
  async user(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphqlContext) {
    return presentUser(await ctx.services.users.get(actorOf(ctx), id));
  }

  @Mutation(() => UserType, { description: 'POST /users (admin, superadmin)' })
  async createUser(@Arg('input', () => CreateUserInput) input: CreateUserInput, @Ctx() ctx: GraphqlContext) {
    return presentUser(await ctx.services.users.create(actorOf(ctx), await parse(CreateUserInput, input)));
  }

  @Mutation(() => UserType, { description: 'PATCH /users/:id (admin, superadmin)' })
  async updateUser(@Arg('id', () => ID) id: string, @Arg('input', () => UpdateUserInput) input: UpdateUserInput, @Ctx() ctx: GraphqlContext) {
    return presentUser(await ctx.services.users.update(actorOf(ctx), id, await parse(UpdateUserInput, input)));
  }

  @Mutation(() => DeleteResultType, { description: 'DELETE /users/:id (admin, superadmin)' })
  async deleteUser(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphqlContext) {
    return { success: true, ...(await ctx.services.users.delete(actorOf(ctx), id)) };
  }

  @FieldResolver(() => [ProjectType], { description: 'Projects this user is a visible member of, among those the caller can access' })
  async projects(@Root() u: UserType, @Ctx() ctx: GraphqlContext) {
    return ctx.loaders.memberProjects.load(u.id);
  }
}
