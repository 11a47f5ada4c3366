import { Router } from 'express';
import { presentUserListEntry, presentUserRecord } from '../../../presenters/user.presenter';
import { CreateUserInput, ListUsersQuery, UpdateUserInput } from '../../../services/users.inputs';
import { parseQuery } from '../../../validation';
import { crudRoutes } from '../crud-routes';
import { RouteTable } from '../route';
import type { Services } from '../../../services';

export function usersRoutes(s: Services): Router {
  const r = new RouteTable(s.tokens);
  r.get('/users', { auth: 'required' }, async (req) => {
    const { users, total } = await s.users.list(req.actor, await parseQuery(ListUsersQuery, req.query, ['limit', 'offset']));
    return { users: users.map(presentUserListEntry), total };
  });
  // before /users/:id, which would otherwise take "me" as an id
  r.get('/users/me', { auth: 'required' }, async (req) => ({ user: presentUserRecord(await s.users.me(req.actor)) }));
  crudRoutes(r, {
    path: '/users',
    key: 'user',
    calls: s.users,
    present: presentUserRecord,
    create: CreateUserInput,
    update: UpdateUserInput,
  });
  return r.router;
}
