import { Router } from 'express';
import { presentProjectDetail, presentProjectListItem } from '../../../presenters/project.presenter';
import { CreateProjectInput, UpdateProjectInput } from '../../../services/projects.inputs';
import { parse } from '../../../validation';
import { route, services } from '../route';

export function projectsRoutes(): Router {
  const r = Router();
  r.get(
    '/projects',
    route({ auth: 'required' }, async (req) => ({
      projects: (await services(req).projects.list(req.actor)).items.map(presentProjectListItem),
    })),
  );
  r.post(
    '/projects',
    route({ auth: 'required', status: 201 }, async (req) => ({
      project: presentProjectDetail(await services(req).projects.create(req.actor, await parse(CreateProjectInput, req.body))),
    })),
  );
  r.get(
    '/projects/:id',
    route({ auth: 'required' }, async (req) => ({
      project: presentProjectDetail(await services(req).projects.get(req.actor, String(req.params.id))),
    })),
  );
  r.patch(
    '/projects/:id',
    route({ auth: 'required' }, async (req) => ({
      project: presentProjectDetail(
        await services(req).projects.update(req.actor, String(req.params.id), await parse(UpdateProjectInput, req.body)),
      ),
    })),
  );
  r.delete(
    '/projects/:id',
    route({ auth: 'required' }, async (req) => ({
      success: true,
      ...(await services(req).projects.delete(req.actor, String(req.params.id))),
    })),
  );
  // DESIGN: deletes answer {success: true, id}; the id is the removed member's user id
  r.delete(
    '/projects/:id/members/:userId',
    route({ auth: 'required' }, async (req) => ({
      success: true,
      id: (await services(req).projects.removeMember(req.actor, String(req.params.id), String(req.params.userId))).userId,
    })),
  );
  return r;
}
