import type { ClassType } from 'type-graphql';
import { parse } from '../../validation';
import type { CrudCalls } from '../crud';
import type { RouteTable } from './route';

/** One kind's REST CRUD run: where it lives, the body key it answers under, its calls and inputs. */
export interface CrudRoutes<View, Create extends object, Update extends object> {
  /** `/groups`: POST there, GET, PATCH and DELETE at `/groups/:id`. */
  path: string;
  /** `group`: `{ group: … }` answers creation, reads and updates. */
  key: string;
  calls: CrudCalls<View, Create, Update>;
  present: (view: View) => unknown;
  create: ClassType<Create>;
  update: ClassType<Update>;
}

/**
 * Declares POST {path} (201), GET, PATCH and DELETE {path}/:id on `r`: each parses its input,
 * makes one service call and presents it (deletes answer `{ success: true, id }`).
 */
export function crudRoutes<View, Create extends object, Update extends object>(
  r: RouteTable,
  kind: CrudRoutes<View, Create, Update>,
): void {
  const { path, key, calls, present } = kind;
  r.post(path, { auth: 'required', status: 201 }, async (req) => ({
    [key]: present(await calls.create(req.actor, await parse(kind.create, req.body))),
  }));
  r.get(`${path}/:id`, { auth: 'required' }, async (req) => ({ [key]: present(await calls.get(req.actor, req.params.id)) }));
  r.patch(`${path}/:id`, { auth: 'required' }, async (req) => ({
    [key]: present(await calls.update(req.actor, req.params.id, await parse(kind.update, req.body))),
  }));
  r.delete(`${path}/:id`, { auth: 'required' }, async (req) => ({ success: true, ...(await calls.delete(req.actor, req.params.id)) }));
}
