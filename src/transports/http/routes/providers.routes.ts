import { Router } from 'express';
import { presentAdminProvider, presentChatModel, presentModels, presentPublicProvider } from '../../../presenters/provider.presenter';
import { CreateProviderInput, TestProviderInput, UpdateProviderInput } from '../../../services/providers.inputs';
import { parse } from '../../../validation';
import { routeWith } from '../route';
import type { Services } from '../../../services';

export function providersRoutes(s: Services): Router {
  const route = routeWith(s.tokens);
  const r = Router();
  r.get(
    '/providers',
    route({ auth: 'required' }, async (req) => ({
      providers: (await s.providers.listEnabled(req.actor)).map(presentPublicProvider),
    })),
  );
  r.get(
    '/providers/models',
    route({ auth: 'required' }, async (req) => ({
      models: presentModels(await s.providers.listEnabled(req.actor)),
    })),
  );
  r.get(
    '/providers/chat-model',
    route({ auth: 'required' }, async (req) => presentChatModel(await s.chatModel.describe(req.actor))),
  );
  r.get(
    '/providers/admin',
    route({ auth: 'required' }, async (req) => ({
      providers: (await s.providers.listAll(req.actor)).map(presentAdminProvider),
    })),
  );
  r.post(
    '/providers',
    route({ auth: 'required', status: 201 }, async (req) => ({
      provider: presentAdminProvider(await s.providers.create(req.actor, await parse(CreateProviderInput, req.body))),
    })),
  );
  r.patch(
    '/providers/:id',
    route({ auth: 'required' }, async (req) => ({
      provider: presentAdminProvider(await s.providers.update(req.actor, req.params.id, await parse(UpdateProviderInput, req.body))),
    })),
  );
  const remove = route({ auth: 'required' }, async (req) => ({
    success: true,
    ...(await s.providers.remove(req.actor, req.params.id)),
  }));
  r.delete('/providers/:id', remove);
  // for clients behind proxies that block DELETE
  r.post('/providers/:id/delete', remove);
  // `draft` tests a configuration before it is saved
  r.post(
    '/providers/:id/test',
    route({ auth: 'required' }, async (req) => s.providers.test(req.actor, req.params.id, await parse(TestProviderInput, req.body))),
  );
  return r;
}
