import { Router } from 'express';
import { presentProjectDetail, presentProjectListItem } from '../../../presenters/project.presenter';
import { CreateProjectInput, UpdateProjectInput } from '../../../services/projects.inputs';
import { crudRoutes } from '../crud-routes';
import { RouteTable } from '../route';
import type { Services } from '../../../services';

export function projectsRoutes(s: Services): Router {
  const r = new RouteTable(s.tokens);
  r.get('/projects', { auth: 'required' }, async (req) => ({
    projects: (await s.projects.list(req.actor)).items.map(presentProjectListItem),
  }));
  crudRoutes(r, {
    path: '/projects',
    key: 'project',
    calls: s.projects,
    present: presentProjectDetail,
    create: CreateProjectInput,
    update: UpdateProjectInput,
  });
  // DESIGN: deletes answer {success: true, id}; the id is the removed member's user id
  r.delete('/projects/:id/members/:userId', { auth: 'required' }, async (req) => ({
    success: true,
    id: (await s.projects.removeMember(req.actor, String(req.params.id), String(req.params.userId))).userId,
  }));
  return r.router;
}
