import { Router } from 'express';

/** TODO(owner of this area): implement. */
export function chatRoutes(): Router {
  const r = Router();
  return r;
}
