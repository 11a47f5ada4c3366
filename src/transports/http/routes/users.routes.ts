import { Router } from 'express';
import { presentUserListEntry, presentUserRecord } from '../../../presenters/user.presenter';
import { CreateUserInput, ListUsersQuery, UpdateUserInput } from '../../../services/users.inputs';
import { parse, parseQuery } from '../../../validation';
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
  r.get(
    '/users/:id',
    route({ auth: 'required' }, async (req) => ({ user: presentUserRecord(await s.users.get(req.actor, req.params.id)) })),
  );
  r.post(
    '/users',
    route({ auth: 'required', status: 201 }, async (req) => ({
      user: presentUserRecord(await s.users.create(req.actor, await parse(CreateUserInput, req.body))),
    })),
  );
  r.patch(
    '/users/:id',
    route({ auth: 'required' }, async (req) => ({
      user: presentUserRecord(await s.users.update(req.actor, req.params.id, await parse(UpdateUserInput, req.body))),
    })),
  );
  r.delete(
    '/users/:id',
    route({ auth: 'required' }, async (req) => ({ success: true, ...(await s.users.delete(req.actor, req.params.id)) })),
  );
  return r;
}
