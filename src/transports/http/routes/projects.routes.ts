import { Router } from 'express';
import { presentProjectDetail, presentProjectListItem } from '../../../presenters/project.presenter';
import { CreateProjectInput, UpdateProjectInput } from '../../../services/projects.inputs';
import { parse } from '../../../validation';
import { routeWith } from '../route';
import type { Services } from '../../../services';

export function projectsRoutes(s: Services): Router {
  const route = routeWith(s.tokens);
  const r = Router();
  r.get(
    '/projects',
    route({ auth: 'required' }, async (req) => ({
      projects: (await s.projects.list(req.actor)).items.map(presentProjectListItem),
    })),
  );
  r.post(
    '/projects',
    route({ auth: 'required', status: 201 }, async (req) => ({
      project: presentProjectDetail(await s.projects.create(req.actor, await parse(CreateProjectInput, req.body))),
    })),
  );
  r.get(
    '/projects/:id',
    route({ auth: 'required' }, async (req) => ({
      project: presentProjectDetail(await s.projects.get(req.actor, String(req.params.id))),
    })),
  );
  r.patch(
    '/projects/:id',
    route({ auth: 'required' }, async (req) => ({
      project: presentProjectDetail(await s.projects.update(req.actor, String(req.params.id), await parse(UpdateProjectInput, req.body))),
    })),
  );
  r.delete(
    '/projects/:id',
    route({ auth: 'required' }, async (req) => ({
      success: true,
      ...(await s.projects.delete(req.actor, String(req.params.id))),
    })),
  );
  // DESIGN: deletes answer {success: true, id}; the id is the removed member's user id
  r.delete(
    '/projects/:id/members/:userId',
    route({ auth: 'required' }, async (req) => ({
      success: true,
      id: (await s.projects.removeMember(req.actor, String(req.params.id), String(req.params.userId))).userId,
    })),
  );
  return r;
}
