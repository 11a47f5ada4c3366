import { Router } from 'express';
import { presentAuditEntry } from '../../../presenters/audit.presenter';
import { AuditLogQuery } from '../../../services/audit.inputs';
import { parseQuery } from '../../../validation';
import { route, services } from '../route';

export function auditRoutes(): Router {
  const r = Router();
  r.get(
    '/audit-log',
    route({ auth: 'required' }, async (req) => {
      const { entries, total } = await services(req).audit.list(req.actor, await parseQuery(AuditLogQuery, req.query, ['limit', 'offset']));
      return { entries: entries.map(presentAuditEntry), total };
    }),
  );
  return r;
}
