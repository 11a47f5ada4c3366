import { Router } from 'express';
import { presentUserListEntry, presentUserRecord } from '../../../presenters/user.presenter';
import { CreateUserInput, ListUsersQuery, UpdateUserInput } from '../../../services/users.inputs';
import { parseQuery } from '../../../validation';
import { crudRoutes } from '../crud-routes';
import { routeWith } from '../route';
import type { Services } from '../../../services';

export function usersRoutes(s: Services): Router {
  const route = routeWith(s.tokens);
  const r = Router();
  r.get(
    '/users',
    route({ auth: 'required' }, async (req) => {
      const { users, total } = await s.users.list(req.actor, await parseQuery(ListUsersQuery, req.query, ['limit', 'offset']));
      return { users: users.map(presentUserListEntry), total };
    }),
  );
  // before /users/:id, which would otherwise take "me" as an id
  r.get(
    '/users/me',
    route({ auth: 'required' }, async (req) => ({ user: presentUserRecord(await s.users.me(req.actor)) })),
  );
  crudRoutes(r, route, {
    path: '/users',
    key: 'user',
    calls: s.users,
    present: presentUserRecord,
    create: CreateUserInput,
    update: UpdateUserInput,
  });
  return r;
}
