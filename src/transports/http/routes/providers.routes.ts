import { Router } from 'express';

/** TODO(owner of this area): implement. */
export function providersRoutes(): Router {
  const r = Router();
  return r;
}
