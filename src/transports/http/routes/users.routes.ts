import { Router } from 'express';
import { presentUserListEntry, presentUserRecord } from '../../../presenters/user.presenter';
import { CreateUserInput, ListUsersQuery, UpdateUserInput } from '../../../services/users.inputs';
import { parse, parseQuery } from '../../../validation';
import { route, services } from '../route';

export function usersRoutes(): Router {
  const r = Router();
  r.get(
    '/users',
    route({ auth: 'required' }, async (req) => {
      const { users, total } = await services(req).users.list(req.actor, await parseQuery(ListUsersQuery, req.query, ['limit', 'offset']));
      return { users: users.map(presentUserListEntry), total };
    }),
  );
  // before /users/:id, which would otherwise take "me" as an id
  r.get(
    '/users/me',
    route({ auth: 'required' }, async (req) => ({ user: presentUserRecord(await services(req).users.me(req.actor)) })),
  );
  r.get(
    '/users/:id',
    route({ auth: 'required' }, async (req) => ({ user: presentUserRecord(await services(req).users.get(req.actor, req.params.id)) })),
  );
  r.post(
    '/users',
    route({ auth: 'required', status: 201 }, async (req) => ({
      user: presentUserRecord(await services(req).users.create(req.actor, await parse(CreateUserInput, req.body))),
    })),
  );
  r.patch(
    '/users/:id',
    route({ auth: 'required' }, async (req) => ({
      user: presentUserRecord(await services(req).users.update(req.actor, req.params.id, await parse(UpdateUserInput, req.body))),
    })),
  );
  r.delete(
    '/users/:id',
    route({ auth: 'required' }, async (req) => ({ success: true, ...(await services(req).users.delete(req.actor, req.params.id)) })),
  );
  return r;
}
