// REST operations: Sign-in, tokens and users.
import { LoginInput, LogoutInput, RefreshInput, OidcCallbackInput } from '../../../auth/auth.inputs';
import { CreateUserInput, ListUsersQuery, UpdateUserInput } from '../../../services/users.inputs';
import { CreateKeyInput, ListKeysQuery } from '../../../services/keys.inputs';
import { ref, wrap, deleted, list, type Operation } from './operation';

export const AUTH_AND_USERS: Operation[] = [
  {
    method: 'post',
    path: '/auth/login',
    tag: 'auth',
    summary: 'Exchange e-mail and password for tokens',
    auth: false,
    body: LoginInput,
    ok: { 200: ref('LoginResult') },
    errors: [401, 429, 503],
  },
  {
    method: 'get',
    path: '/auth/sso',
    tag: 'auth',
    summary: 'What the sign-in page offers: single sign-on (its name) when OIDC_ISSUER is set, and whether password sign-in is on',
    auth: false,
    ok: { 200: ref('LoginOptions') },
  },
  {
    method: 'get',
    path: '/auth/oidc/start',
    tag: 'auth',
    summary:
      'Single sign-on: redirects (302) to the identity provider (authorization code with PKCE, state and nonce), the flow kept in a signed HttpOnly cookie; 404 when not configured',
    auth: false,
    ok: { 302: null },
    errors: [404],
  },
  {
    method: 'post',
    path: '/auth/oidc/callback',
    tag: 'auth',
    summary:
      'Single sign-on: `callbackUrl` is where the provider sent the browser back; tokens as a password login issues them. 401 `sso_failed` (wrong state or nonce, unverified email, inactive user, expired flow), 403 `sso_no_account` or `sso_domain_not_allowed`',
    auth: false,
    body: OidcCallbackInput,
    ok: { 200: ref('LoginResult') },
    errors: [401, 403, 404],
  },
  {
    method: 'post',
    path: '/auth/refresh',
    tag: 'auth',
    summary: 'Rotate a refresh token (reusing a rotated one revokes its family)',
    auth: false,
    body: RefreshInput,
    ok: { 200: ref('TokenPair') },
    errors: [401],
  },
  {
    method: 'post',
    path: '/auth/logout',
    tag: 'auth',
    summary: "Revoke the given refresh token, or all of the caller's without a body",
    body: LogoutInput,
    bodyOptional: true,
    ok: { 204: null },
  },
  { method: 'get', path: '/auth/me', tag: 'auth', summary: 'The caller, re-read from storage', ok: { 200: wrap('user', ref('Me')) } },
  {
    method: 'get',
    path: '/auth/capabilities',
    tag: 'auth',
    summary:
      'What the caller may do in the organisation (users, departments, groups, audit log, providers, feedback), from the rules the server applies: clients show what it allows',
    ok: { 200: wrap('capabilities', ref('Capabilities')) },
  },
  {
    method: 'get',
    path: '/users',
    tag: 'users',
    summary: 'List users (admin, superadmin)',
    query: ListUsersQuery,
    ok: {
      200: {
        type: 'object',
        properties: { users: { type: 'array', items: ref('UserListEntry') }, total: { type: 'integer' } },
        required: ['users', 'total'],
        additionalProperties: false,
      },
    },
  },
  { method: 'get', path: '/users/me', tag: 'users', summary: 'The caller', ok: { 200: wrap('user', ref('User')) } },
  { method: 'get', path: '/users/:id', tag: 'users', summary: 'One user', ok: { 200: wrap('user', ref('User')) } },
  {
    method: 'post',
    path: '/users',
    tag: 'users',
    summary: 'Create a user',
    body: CreateUserInput,
    ok: { 201: wrap('user', ref('User')) },
    errors: [409],
  },
  {
    method: 'patch',
    path: '/users/:id',
    tag: 'users',
    summary: 'Update a user',
    body: UpdateUserInput,
    ok: { 200: wrap('user', ref('User')) },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/users/:id',
    tag: 'users',
    summary: 'Delete a user (their grants and memberships go too)',
    ok: { 200: deleted() },
    errors: [409],
  },
];

/** Keys for programs (issue 38). */
export const KEYS: Operation[] = [
  {
    method: 'post',
    path: '/keys',
    tag: 'keys',
    summary: 'Create a key owned by the caller (the secret is shown once); not with a key; `platform` by admins only',
    body: CreateKeyInput,
    ok: { 201: ref('CreatedKey') },
  },
  {
    method: 'get',
    path: '/keys',
    tag: 'keys',
    summary: "The caller's keys, never their secrets (admins: any user's, with `userId`)",
    query: ListKeysQuery,
    ok: { 200: list('keys', 'ApiKey') },
  },
  { method: 'delete', path: '/keys/:id', tag: 'keys', summary: 'Revoke a key (its open streams end)', ok: { 200: deleted() } },
];
