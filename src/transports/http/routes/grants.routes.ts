import { Router } from 'express';
import { presentGrant, presentGrantsReachingUser } from '../../../presenters/grant.presenter';
import { UpsertGrantInput } from '../../../services/grants.inputs';
import { parse } from '../../../validation';
import { Reply, route, services } from '../route';

export function grantsRoutes(): Router {
  const r = Router();
  r.post(
    '/projects/:projectId/grants',
    route({ auth: 'required' }, async (req) => {
      const { grant, action } = await services(req).grants.upsert(
        req.actor,
        String(req.params.projectId),
        await parse(UpsertGrantInput, req.body),
      );
      return new Reply(action === 'created' ? 201 : 200, { grant: presentGrant(grant), action });
    }),
  );
  r.get(
    '/projects/:projectId/grants',
    route({ auth: 'required' }, async (req) => ({
      grants: (await services(req).grants.list(req.actor, String(req.params.projectId))).map(presentGrant),
    })),
  );
  r.delete(
    '/projects/:projectId/grants/:grantId',
    route({ auth: 'required' }, async (req) => ({
      success: true,
      ...(await services(req).grants.delete(req.actor, String(req.params.projectId), String(req.params.grantId))),
    })),
  );
  r.get(
    '/grants/by-user/:userId',
    route({ auth: 'required' }, async (req) =>
      presentGrantsReachingUser(await services(req).grants.byUser(req.actor, String(req.params.userId))),
    ),
  );
  return r;
}
