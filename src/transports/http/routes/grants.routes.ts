import { Router } from 'express';
import { presentEffectiveAccess, presentGrant, presentGrantsReachingUser } from '../../../presenters/grant.presenter';
import { UpsertGrantInput } from '../../../services/grants.inputs';
import { parse } from '../../../validation';
import { Reply, RouteTable } from '../route';
import type { Services } from '../../../services';

export function grantsRoutes(s: Services): Router {
  const r = new RouteTable(s.tokens);
  r.post('/projects/:projectId/grants', { auth: 'required' }, async (req) => {
    const { grant, action } = await s.grants.upsert(req.actor, String(req.params.projectId), await parse(UpsertGrantInput, req.body));
    return new Reply(action === 'created' ? 201 : 200, { grant: presentGrant(grant), action });
  });
  r.get('/projects/:projectId/grants', { auth: 'required' }, async (req) => ({
    grants: (await s.grants.list(req.actor, String(req.params.projectId))).map(presentGrant),
  }));
  r.delete('/projects/:projectId/grants/:grantId', { auth: 'required' }, async (req) => ({
    success: true,
    ...(await s.grants.delete(req.actor, String(req.params.projectId), String(req.params.grantId))),
  }));
  r.get('/projects/:projectId/access/:userId', { auth: 'required' }, async (req) => ({
    access: presentEffectiveAccess(await s.grants.effectiveAccess(req.actor, String(req.params.projectId), String(req.params.userId))),
  }));
  r.get('/grants/by-user/:userId', { auth: 'required' }, async (req) =>
    presentGrantsReachingUser(await s.grants.byUser(req.actor, String(req.params.userId))),
  );
  return r.router;
}
