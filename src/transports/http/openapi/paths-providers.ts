// REST operations: Language-model providers (admin).
import { CreateProviderInput, TestProviderInput, UpdateProviderInput } from '../../../services/providers.inputs';
import { ref, wrap, list, deleted, type Operation } from './operation';

export const PROVIDERS: Operation[] = [
  {
    method: 'get',
    path: '/providers',
    tag: 'providers',
    summary: 'Enabled providers, without secrets',
    ok: { 200: list('providers', 'PublicProvider') },
  },
  {
    method: 'get',
    path: '/providers/models',
    tag: 'providers',
    summary: 'Every model of every enabled provider',
    ok: { 200: list('models', 'Model') },
  },
  {
    method: 'get',
    path: '/providers/chat-model',
    tag: 'providers',
    summary:
      'The model chat answers with when a question and its project name none, and whether a provider or LLM_* gives it; null when chat has no model',
    ok: { 200: ref('ChatModel') },
  },
  {
    method: 'get',
    path: '/providers/admin',
    tag: 'providers',
    summary: 'All providers with masked keys (engineer, superadmin)',
    ok: { 200: list('providers', 'AdminProvider') },
  },
  {
    method: 'post',
    path: '/providers',
    tag: 'providers',
    summary: 'Create a provider',
    body: CreateProviderInput,
    ok: { 201: wrap('provider', ref('AdminProvider')) },
    errors: [409],
  },
  {
    method: 'patch',
    path: '/providers/:id',
    tag: 'providers',
    summary: 'Update a provider (an empty apiKey keeps the stored one)',
    body: UpdateProviderInput,
    ok: { 200: wrap('provider', ref('AdminProvider')) },
    errors: [409],
  },
  { method: 'delete', path: '/providers/:id', tag: 'providers', summary: 'Delete a provider', ok: { 200: deleted() } },
  {
    method: 'post',
    path: '/providers/:id/delete',
    tag: 'providers',
    summary: 'Delete a provider (for clients behind proxies that block DELETE)',
    ok: { 200: deleted() },
  },
  {
    method: 'post',
    path: '/providers/:id/test',
    tag: 'providers',
    summary: 'Send a small completion through a provider (`draft`: an unsaved configuration)',
    body: TestProviderInput,
    ok: { 200: ref('ProviderTestResult') },
  },
];
