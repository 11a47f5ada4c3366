import { Router } from 'express';
import { presentGroup } from '../../../presenters/group.presenter';
import { CreateGroupInput, GroupMembersInput, ListGroupsQuery, UpdateGroupInput } from '../../../services/groups.inputs';
import type { GroupView } from '../../../services/groups.service';
import { parse, parseQuery } from '../../../validation';
import { crudRoutes } from '../crud-routes';
import { RouteTable } from '../route';
import type { Services } from '../../../services';

const present = (v: GroupView) => presentGroup(v.group, v);

export function groupsRoutes(s: Services): Router {
  const r = new RouteTable(s.tokens);
  r.get('/groups', { auth: 'required' }, async (req) => ({
    groups: (await s.groups.list(req.actor, await parseQuery(ListGroupsQuery, req.query))).items.map(present),
  }));
  crudRoutes(r, { path: '/groups', key: 'group', calls: s.groups, present, create: CreateGroupInput, update: UpdateGroupInput });
  r.post('/groups/:id/members', { auth: 'required' }, async (req) => ({
    group: present(await s.groups.addMembers(req.actor, req.params.id, await parse(GroupMembersInput, req.body))),
  }));
  r.delete('/groups/:id/members/:userId', { auth: 'required' }, async (req) => ({
    success: true,
    ...(await s.groups.removeMember(req.actor, req.params.id, req.params.userId)),
  }));
  return r.router;
}
