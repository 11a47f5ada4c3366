import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { Actor } from '../../../access/actor';
import { presentAuditEntry } from '../../../presenters/audit.presenter';
import { AuditLogQuery } from '../../../services/audit.inputs';
import { GraphqlContext } from '../context';
import { CurrentActor, ValidArg } from '../params';
import { AuditEntryPage } from '../types/audit.type';
import type { PageOf } from '../types/common.type';
import type { AuditEntryDto } from '../../../presenters/dto.generated';

@Resolver()
export class AuditResolver {
  @Authorized()
  @Query(() => AuditEntryPage, { description: 'GET /audit-log (admin, superadmin): newest first' })
  async auditLog(
    @ValidArg('filter', AuditLogQuery, { nullable: true }) filter: AuditLogQuery,
    @CurrentActor() actor: Actor,
    @Ctx() ctx: GraphqlContext,
  ): Promise<PageOf<AuditEntryDto>> {
    const { entries, total } = await ctx.services.audit.list(actor, filter);
    return { items: entries.map(presentAuditEntry), total };
  }
}
