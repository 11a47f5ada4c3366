import { Arg, Args, Ctx, FieldResolver, ID, Resolver, Root } from 'type-graphql';
import { SignedInQuery, SignedInMutation } from '../auth-checker';
import { presentDepartment } from '../../../presenters/department.presenter';
import { presentUserSummary } from '../../../presenters/user.presenter';
import { AddDepartmentMembersInput, CreateDepartmentInput, UpdateDepartmentInput } from '../../../services/departments.inputs';
import type { DepartmentView } from '../../../services/departments.service';
import { crudResolver } from '../crud';
import { GraphqlContext } from '../context';
import { Caller, ValidArg, ValidArgs } from '../params';
import { DeleteResultType, MemberArgs, PageArgs } from '../types/common.type';
import { DepartmentCountsType, DepartmentPage, DepartmentType } from '../types/department.type';
import { GroupType } from '../types/group.type';
import { UserType } from '../types/user.type';
import { presentPage, type PageOf } from '../types/common.type';
import type { GraphDepartmentDto } from '../../../presenters/department.presenter';
import type { DeleteResultDto, GroupDto, UserSummaryDto } from '../../../presenters/dto.generated';

const present = (v: DepartmentView): GraphDepartmentDto => presentDepartment(v.department, v.counts);
type DepartmentRoot = DepartmentType & { _count?: DepartmentCountsType };

@Resolver(() => DepartmentType)
export class DepartmentResolver extends crudResolver({
  name: 'Department',
  type: DepartmentType,
  create: CreateDepartmentInput,
  update: UpdateDepartmentInput,
  calls: (s) => s.departments,
  present,
  describe: {
    get: 'GET /departments/:id',
    create: 'POST /departments (admin, superadmin)',
    update: "PATCH /departments/:id (admin, superadmin, the department's manager)",
    delete: 'DELETE /departments/:id (admin, superadmin; 409 while referenced)',
  },
}) {
  @SignedInQuery(() => DepartmentPage, { description: 'GET /departments (admin, superadmin, the CEO; a manager sees their own)' })
  async departments(@ValidArgs(PageArgs) page: PageArgs, @Caller() { actor, services }: Caller): Promise<PageOf<GraphDepartmentDto>> {
    return presentPage(await services.departments.list(actor, page), present);
  }

  @SignedInMutation(() => [UserType], { description: 'POST /departments/:id/members (admin, superadmin): the members afterwards' })
  async addDepartmentMembers(
    @Arg('id', () => ID) id: string,
    @ValidArg('input', AddDepartmentMembersInput) input: AddDepartmentMembersInput,
    @Caller() { actor, services }: Caller,
  ): Promise<UserSummaryDto[]> {
    return (await services.departments.addMembers(actor, id, input)).map(presentUserSummary);
  }

  @SignedInMutation(() => DeleteResultType, {
    description: "DELETE /departments/:id/members/:userId (admin, superadmin, the CEO, the department's manager)",
  })
  async removeDepartmentMember(@Args() { id, userId }: MemberArgs, @Caller() { actor, services }: Caller): Promise<DeleteResultDto> {
    return { success: true, ...(await services.departments.removeMember(actor, id, userId)) };
  }

  @FieldResolver(() => DepartmentCountsType, {
    nullable: true,
    description: 'REST `_count` {members, groups, grants} (department readers)',
  })
  async counts(@Root() d: DepartmentRoot, @Ctx() ctx: GraphqlContext): Promise<DepartmentCountsType | null> {
    return d._count ?? (await ctx.loaders.departments.load(d.id))._count ?? null;
  }

  @FieldResolver(() => [UserType], { nullable: true, description: 'GET /departments/:id/members (department readers)' })
  async members(@Root() d: DepartmentType, @Ctx() ctx: GraphqlContext): Promise<UserSummaryDto[]> {
    return ctx.loaders.departmentMembers.load(d.id);
  }

  @FieldResolver(() => [GroupType], { nullable: true, description: "The department's groups (group readers)" })
  async groups(@Root() d: DepartmentType, @Ctx() ctx: GraphqlContext): Promise<GroupDto[]> {
    return ctx.loaders.departmentGroups.load(d.id);
  }
}
