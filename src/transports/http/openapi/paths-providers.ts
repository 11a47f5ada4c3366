// REST operations: Language-model providers (admin).
import { CreateProviderInput, TestProviderInput, UpdateProviderInput } from '../../../services/providers.inputs';
import { ref, wrap, list, deleted, tagged, type Operation } from './operation';

const providers = tagged('providers');

export const PROVIDERS: Operation[] = [
  providers.get('/providers', 'Enabled providers, without secrets', { 200: list('providers', 'PublicProvider') }),
  providers.get('/providers/models', 'Every model of every enabled provider', { 200: list('models', 'Model') }),
  providers.get(
    '/providers/chat-model',
    'The model chat answers with when a question and its project name none, and whether a provider or LLM_* gives it; null when chat has no model',
    { 200: ref('ChatModel') },
  ),
  providers.get('/providers/admin', 'All providers with masked keys (engineer, superadmin)', { 200: list('providers', 'AdminProvider') }),
  providers.post(
    '/providers',
    'Create a provider',
    { 201: wrap('provider', ref('AdminProvider')) },
    { body: CreateProviderInput, errors: [409] },
  ),
  providers.patch(
    '/providers/:id',
    'Update a provider (an empty apiKey keeps the stored one)',
    { 200: wrap('provider', ref('AdminProvider')) },
    { body: UpdateProviderInput, errors: [409] },
  ),
  providers.delete('/providers/:id', 'Delete a provider', { 200: deleted() }),
  providers.post('/providers/:id/delete', 'Delete a provider (for clients behind proxies that block DELETE)', { 200: deleted() }),
  providers.post(
    '/providers/:id/test',
    'Send a small completion through a provider (`draft`: an unsaved configuration)',
    { 200: ref('ProviderTestResult') },
    { body: TestProviderInput },
  ),
];
