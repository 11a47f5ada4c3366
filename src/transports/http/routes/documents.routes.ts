import { Router } from 'express';

/** TODO(owner of this area): implement. */
export function documentsRoutes(): Router {
  const r = Router();
  return r;
}
