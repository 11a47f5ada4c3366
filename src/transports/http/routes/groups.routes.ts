import { Router } from 'express';

/** TODO(owner of this area): implement. */
export function groupsRoutes(): Router {
  const r = Router();
  return r;
}
