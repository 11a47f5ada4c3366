import { Router } from 'express';

/** TODO(owner of this area): implement. */
export function auditRoutes(): Router {
  const r = Router();
  return r;
}
