import { Router } from 'express';
import { presentCreatedKey, presentKey } from '../../../presenters/key.presenter';
import { CreateKeyInput, ListKeysQuery } from '../../../services/keys.inputs';
import { parse, parseQuery } from '../../../validation';
import { RouteTable } from '../route';
import type { Services } from '../../../services';

/** Keys for programs (issue 38). */
export function keysRoutes(s: Services): Router {
  const r = new RouteTable(s.tokens);
  r.post('/keys', { auth: 'required', status: 201 }, async (req) =>
    presentCreatedKey(await s.keys.create(req.actor, await parse(CreateKeyInput, req.body))),
  );
  r.get('/keys', { auth: 'required' }, async (req) => ({
    keys: (await s.keys.list(req.actor, await parseQuery(ListKeysQuery, req.query))).map(presentKey),
  }));
  r.delete('/keys/:id', { auth: 'required' }, async (req) => {
    const id = String(req.params.id);
    await s.keys.revoke(req.actor, id);
    return { success: true, id };
  });
  return r.router;
}
