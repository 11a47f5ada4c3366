import { Router } from 'express';

/** TODO(owner of this area): implement. */
export function grantsRoutes(): Router {
  const r = Router();
  return r;
}
