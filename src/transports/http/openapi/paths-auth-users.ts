// REST operations: Sign-in, tokens and users.
import { LoginInput, LogoutInput, RefreshInput, OidcCallbackInput } from '../../../auth/auth.inputs';
import { CreateUserInput, ListUsersQuery, UpdateUserInput } from '../../../services/users.inputs';
import { CreateKeyInput, ListKeysQuery } from '../../../services/keys.inputs';
import { crudOperations, deleted, list, page, ref, tagged, wrap, type Operation } from './operation';

const auth = tagged('auth');
/** Signing in itself: public, before the caller has a token. */
const signIn = tagged('auth', { auth: false });
const users = tagged('users');
const keys = tagged('keys');

export const AUTH_AND_USERS: Operation[] = [
  signIn.post(
    '/auth/login',
    'Exchange e-mail and password for tokens',
    { 200: ref('LoginResult') },
    { body: LoginInput, errors: [401, 429, 503] },
  ),
  signIn.get(
    '/auth/sso',
    'What the sign-in page offers: single sign-on (its name) when OIDC_ISSUER is set, and whether password sign-in is on',
    { 200: ref('LoginOptions') },
  ),
  signIn.get(
    '/auth/oidc/start',
    'Single sign-on: redirects (302) to the identity provider (authorization code with PKCE, state and nonce), the flow kept in a signed HttpOnly cookie; 404 when not configured',
    { 302: null },
    { errors: [404] },
  ),
  signIn.post(
    '/auth/oidc/callback',
    'Single sign-on: `callbackUrl` is where the provider sent the browser back; tokens as a password login issues them. 401 `sso_failed` (wrong state or nonce, unverified email, inactive user, expired flow), 403 `sso_no_account` or `sso_domain_not_allowed`',
    { 200: ref('LoginResult') },
    { body: OidcCallbackInput, errors: [401, 403, 404] },
  ),
  signIn.post(
    '/auth/refresh',
    'Rotate a refresh token (reusing a rotated one revokes its family)',
    { 200: ref('TokenPair') },
    { body: RefreshInput, errors: [401] },
  ),
  auth.post(
    '/auth/logout',
    "Revoke the given refresh token, or all of the caller's without a body",
    { 204: null },
    { body: LogoutInput, bodyOptional: true },
  ),
  auth.get('/auth/me', 'The caller, re-read from storage', { 200: wrap('user', ref('Me')) }),
  auth.get(
    '/auth/capabilities',
    'What the caller may do in the organisation (users, departments, groups, audit log, providers, feedback), from the rules the server applies: clients show what it allows',
    { 200: wrap('capabilities', ref('Capabilities')) },
  ),
  users.get('/users', 'List users (admin, superadmin)', { 200: page('users', 'UserListEntry') }, { query: ListUsersQuery }),
  users.get('/users/me', 'The caller', { 200: wrap('user', ref('User')) }),
  ...crudOperations(users, {
    path: '/users',
    answer: wrap('user', ref('User')),
    create: CreateUserInput,
    update: UpdateUserInput,
    writeErrors: [409],
    summary: {
      create: 'Create a user',
      get: 'One user',
      update: 'Update a user',
      delete: 'Delete a user (their grants and memberships go too)',
    },
  }),
];

/** Keys for programs (issue 38). */
export const KEYS: Operation[] = [
  keys.post(
    '/keys',
    'Create a key owned by the caller (the secret is shown once); not with a key; `platform` by admins only',
    { 201: ref('CreatedKey') },
    { body: CreateKeyInput },
  ),
  keys.get(
    '/keys',
    "The caller's keys, never their secrets (admins: any user's, with `userId`)",
    { 200: list('keys', 'ApiKey') },
    { query: ListKeysQuery },
  ),
  keys.delete('/keys/:id', 'Revoke a key (its open streams end)', { 200: deleted() }),
];
