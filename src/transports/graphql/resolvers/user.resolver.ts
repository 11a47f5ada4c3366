import { Arg, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Actor } from '../../../access/actor';
import { presentUser } from '../../../presenters/user.presenter';
import { CreateUserInput, ListUsersQuery, UpdateUserInput } from '../../../services/users.inputs';
import { GraphqlContext } from '../context';
import { CurrentActor, ValidArg } from '../params';
import { DeleteResultType } from '../types/common.type';
import { ProjectType } from '../types/project.type';
import { UserPage, UserType } from '../types/user.type';
import type { PageOf } from '../types/common.type';
import type { GraphUserDto } from '../../../presenters/user.presenter';
import type { GraphMemberProjectDto } from '../../../presenters/project.presenter';
import type { DeleteResultDto } from '../../../presenters/dto.generated';

@Resolver(() => UserType)
export class UserResolver {
  @Authorized()
  @Query(() => UserPage, { description: 'GET /users (admin, superadmin): filters, literal search, limit/offset and total' })
  async users(
    @ValidArg('filter', ListUsersQuery, { nullable: true }) filter: ListUsersQuery,
    @CurrentActor() actor: Actor,
    @Ctx() ctx: GraphqlContext,
  ): Promise<PageOf<GraphUserDto>> {
    const { users, total } = await ctx.services.users.list(actor, filter);
    return { items: users.map(presentUser), total };
  }

  @Authorized()
  @Query(() => UserType, { description: 'GET /users/:id (admin, superadmin)' })
  async user(@Arg('id', () => ID) id: string, @CurrentActor() actor: Actor, @Ctx() ctx: GraphqlContext): Promise<GraphUserDto> {
    return presentUser(await ctx.services.users.get(actor, id));
  }

  @Authorized()
  @Mutation(() => UserType, { description: 'POST /users (admin, superadmin)' })
  async createUser(
    @ValidArg('input', CreateUserInput) input: CreateUserInput,
    @CurrentActor() actor: Actor,
    @Ctx() ctx: GraphqlContext,
  ): Promise<GraphUserDto> {
    return presentUser(await ctx.services.users.create(actor, input));
  }

  @Authorized()
  @Mutation(() => UserType, { description: 'PATCH /users/:id (admin, superadmin)' })
  async updateUser(
    @Arg('id', () => ID) id: string,
    @ValidArg('input', UpdateUserInput) input: UpdateUserInput,
    @CurrentActor() actor: Actor,
    @Ctx() ctx: GraphqlContext,
  ): Promise<GraphUserDto> {
    return presentUser(await ctx.services.users.update(actor, id, input));
  }

  @Authorized()
  @Mutation(() => DeleteResultType, { description: 'DELETE /users/:id (admin, superadmin)' })
  async deleteUser(@Arg('id', () => ID) id: string, @CurrentActor() actor: Actor, @Ctx() ctx: GraphqlContext): Promise<DeleteResultDto> {
    return { success: true, ...(await ctx.services.users.delete(actor, id)) };
  }

  @FieldResolver(() => [ProjectType], { description: 'Projects this user is a visible member of, among those the caller can access' })
  async projects(@Root() u: UserType, @Ctx() ctx: GraphqlContext): Promise<GraphMemberProjectDto[]> {
    return ctx.loaders.memberProjects.load(u.id);
  }
}
