import { Router } from 'express';
import { presentAdminProvider, presentChatModel, presentModels, presentPublicProvider } from '../../../presenters/provider.presenter';
import { CreateProviderInput, TestProviderInput, UpdateProviderInput } from '../../../services/providers.inputs';
import { parse } from '../../../validation';
import { RouteTable, type Handler } from '../route';
import type { Services } from '../../../services';

export function providersRoutes(s: Services): Router {
  const r = new RouteTable(s.tokens);
  r.get('/providers', { auth: 'required' }, async (req) => ({
    providers: (await s.providers.listEnabled(req.actor)).map(presentPublicProvider),
  }));
  r.get('/providers/models', { auth: 'required' }, async (req) => ({
    models: presentModels(await s.providers.listEnabled(req.actor)),
  }));
  r.get('/providers/chat-model', { auth: 'required' }, async (req) => presentChatModel(await s.chatModel.describe(req.actor)));
  r.get('/providers/admin', { auth: 'required' }, async (req) => ({
    providers: (await s.providers.listAll(req.actor)).map(presentAdminProvider),
  }));
  r.post('/providers', { auth: 'required', status: 201 }, async (req) => ({
    provider: presentAdminProvider(await s.providers.create(req.actor, await parse(CreateProviderInput, req.body))),
  }));
  r.patch('/providers/:id', { auth: 'required' }, async (req) => ({
    provider: presentAdminProvider(await s.providers.update(req.actor, req.params.id, await parse(UpdateProviderInput, req.body))),
  }));
  const remove: Handler<'required'> = async (req) => ({ success: true, ...(await s.providers.remove(req.actor, req.params.id)) });
  r.delete('/providers/:id', { auth: 'required' }, remove);
  // for clients behind proxies that block DELETE
  r.post('/providers/:id/delete', { auth: 'required' }, remove);
  // `draft` tests a configuration before it is saved
  r.post('/providers/:id/test', { auth: 'required' }, async (req) =>
    s.providers.test(req.actor, req.params.id, await parse(TestProviderInput, req.body)),
  );
  return r.router;
}
