import { Resolver } from 'type-graphql';
import { SignedInQuery } from '../auth-checker';
import { presentAuditEntry } from '../../../presenters/audit.presenter';
import { AuditLogQuery } from '../../../services/audit.inputs';
import { Caller, FilterArg } from '../params';
import { AuditEntryPage } from '../types/audit.type';
import type { PageOf } from '../types/common.type';
import type { AuditEntryDto } from '../../../presenters/dto.generated';

@Resolver()
export class AuditResolver {
  @SignedInQuery(() => AuditEntryPage, { description: 'GET /audit-log (admin, superadmin): newest first' })
  async auditLog(@FilterArg(AuditLogQuery) filter: AuditLogQuery, @Caller() { actor, services }: Caller): Promise<PageOf<AuditEntryDto>> {
    const { entries, total } = await services.audit.list(actor, filter);
    return { items: entries.map(presentAuditEntry), total };
  }
}
