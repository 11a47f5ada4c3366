import { Router } from 'express';

/** TODO(owner of this area): implement. */
export function departmentsRoutes(): Router {
  const r = Router();
  return r;
}
