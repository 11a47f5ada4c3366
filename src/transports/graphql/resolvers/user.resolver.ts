import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { SignedInQuery } from '../auth-checker';
import { presentUser } from '../../../presenters/user.presenter';
import { CreateUserInput, ListUsersQuery, UpdateUserInput } from '../../../services/users.inputs';
import { crudResolver } from '../crud';
import { GraphqlContext } from '../context';
import { Caller, FilterArg } from '../params';
import { ProjectType } from '../types/project.type';
import { UserPage, UserType } from '../types/user.type';
import type { PageOf } from '../types/common.type';
import type { GraphUserDto } from '../../../presenters/user.presenter';
import type { GraphMemberProjectDto } from '../../../presenters/project.presenter';

@Resolver(() => UserType)
export class UserResolver extends crudResolver({
  name: 'User',
  type: UserType,
  create: CreateUserInput,
  update: UpdateUserInput,
  calls: (s) => s.users,
  present: presentUser,
  describe: {
    get: 'GET /users/:id (admin, superadmin)',
    create: 'POST /users (admin, superadmin)',
    update: 'PATCH /users/:id (admin, superadmin)',
    delete: 'DELETE /users/:id (admin, superadmin)',
  },
}) {
  @SignedInQuery(() => UserPage, { description: 'GET /users (admin, superadmin): filters, literal search, limit/offset and total' })
  async users(@FilterArg(ListUsersQuery) filter: ListUsersQuery, @Caller() { actor, services }: Caller): Promise<PageOf<GraphUserDto>> {
    const { users, total } = await services.users.list(actor, filter);
    return { items: users.map(presentUser), total };
  }

  @FieldResolver(() => [ProjectType], { description: 'Projects this user is a visible member of, among those the caller can access' })
  async projects(@Root() u: UserType, @Ctx() ctx: GraphqlContext): Promise<GraphMemberProjectDto[]> {
    return ctx.loaders.memberProjects.load(u.id);
  }
}
