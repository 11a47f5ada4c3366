import { Router } from 'express';
import { presentAuditEntry } from '../../../presenters/audit.presenter';
import { AuditLogQuery } from '../../../services/audit.inputs';
import { parseQuery } from '../../../validation';
import { RouteTable } from '../route';
import type { Services } from '../../../services';

export function auditRoutes(s: Services): Router {
  const r = new RouteTable(s.tokens);
  r.get('/audit-log', { auth: 'required' }, async (req) => {
    const { entries, total } = await s.audit.list(req.actor, await parseQuery(AuditLogQuery, req.query, ['limit', 'offset']));
    return { entries: entries.map(presentAuditEntry), total };
  });
  return r.router;
}
