import { Router } from 'express';

/** TODO(owner of this area): implement. */
export function projectsRoutes(): Router {
  const r = Router();
  return r;
}
