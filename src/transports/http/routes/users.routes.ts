import { Router } from 'express';

/** TODO(owner of this area): implement. */
export function usersRoutes(): Router {
  const r = Router();
  return r;
}
