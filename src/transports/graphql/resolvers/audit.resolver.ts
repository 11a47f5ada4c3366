import { Arg, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { presentAuditEntry } from '../../../presenters/audit.presenter';
import { AuditLogQuery } from '../../../services/audit.inputs';
import { parse } from '../../../validation';
import { actorOf, GraphqlContext } from '../context';
import { AuditEntryPage } from '../types/audit.type';

@Authorized()
@Resolver()
export class AuditResolver {
  @Query(() => AuditEntryPage, { description: 'GET /audit-log (admin, superadmin): newest first' })
  async auditLog(@Arg('filter', () => AuditLogQuery, { nullable: true }) filter: AuditLogQuery | undefined, @Ctx() ctx: GraphqlContext) {
    const { entries, total } = await ctx.services.audit.list(actorOf(ctx), await parse(AuditLogQuery, filter ?? {}));
    return { items: entries.map(presentAuditEntry), total };
  }
}
