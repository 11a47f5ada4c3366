import { Router } from 'express';
import { presentDepartmentRecord } from '../../../presenters/department.presenter';
import { presentUserSummary } from '../../../presenters/user.presenter';
import { AddDepartmentMembersInput, CreateDepartmentInput, UpdateDepartmentInput } from '../../../services/departments.inputs';
import type { DepartmentView } from '../../../services/departments.service';
import { parse } from '../../../validation';
import { crudRoutes } from '../crud-routes';
import { RouteTable } from '../route';
import type { Services } from '../../../services';

const present = (v: DepartmentView) => presentDepartmentRecord(v.department, v.counts);

export function departmentsRoutes(s: Services): Router {
  const r = new RouteTable(s.tokens);
  r.get('/departments', { auth: 'required' }, async (req) => ({ departments: (await s.departments.list(req.actor)).items.map(present) }));
  crudRoutes(r, {
    path: '/departments',
    key: 'department',
    calls: s.departments,
    present,
    create: CreateDepartmentInput,
    update: UpdateDepartmentInput,
  });
  r.get('/departments/:id/members', { auth: 'required' }, async (req) => ({
    members: (await s.departments.members(req.actor, req.params.id)).map(presentUserSummary),
  }));
  r.post('/departments/:id/members', { auth: 'required' }, async (req) => ({
    members: (await s.departments.addMembers(req.actor, req.params.id, await parse(AddDepartmentMembersInput, req.body))).map(
      presentUserSummary,
    ),
  }));
  r.delete('/departments/:id/members/:userId', { auth: 'required' }, async (req) => ({
    success: true,
    ...(await s.departments.removeMember(req.actor, req.params.id, req.params.userId)),
  }));
  return r.router;
}
