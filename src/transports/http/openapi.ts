import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { Schema } from '../../presenters/schema-builders';
import { RESPONSE_SCHEMAS } from '../../presenters/schemas';
import { AuditLogQuery } from '../../services/audit.inputs';
import { LoginInput, LogoutInput, RefreshInput } from '../../services/auth.inputs';
import { AskInput, ConversationListQuery } from '../../services/chat.inputs';
import { AddDepartmentMembersInput, CreateDepartmentInput, UpdateDepartmentInput } from '../../services/departments.inputs';
import { ListDocumentsInput } from '../../services/documents.inputs';
import { MAX_FILES_PER_UPLOAD } from '../../services/documents.service';
import { UpsertGrantInput } from '../../services/grants.inputs';
import { CreateGroupInput, GroupMembersInput, ListGroupsQuery, UpdateGroupInput } from '../../services/groups.inputs';
import { CreateProjectInput, UpdateProjectInput } from '../../services/projects.inputs';
import { CreateProviderInput, TestProviderInput, UpdateProviderInput } from '../../services/providers.inputs';
import { CreateUserInput, ListUsersQuery, UpdateUserInput } from '../../services/users.inputs';

// class-transformer's metadata (for @Type() nested inputs) lives in this module; it has no public export
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: unknown };

type Ctor = new () => object;
type Method = 'get' | 'post' | 'patch' | 'delete';

/** One REST operation as the document describes it. */
interface Operation {
  method: Method;
  /** Express syntax, under /api (`/projects/:id`). */
  path: string;
  tag: string;
  summary: string;
  /** false for the two public operations (login, refresh). */
  auth?: boolean;
  body?: Ctor | 'multipart';
  /** A body that may be left out entirely (logout). */
  bodyOptional?: boolean;
  query?: Ctor;
  /** Success statuses and the component schema of their body (null: no body). */
  ok: Record<number, Schema | null>;
  /** Error statuses beyond the ones every operation of its kind can answer (see errorStatuses). */
  errors?: number[];
  /** The chat stream (text/event-stream) instead of JSON. */
  stream?: boolean;
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const wrap = (key: string, schema: Schema): Schema => ({
  type: 'object',
  properties: { [key]: schema },
  required: [key],
  additionalProperties: false,
});
const list = (key: string, item: string): Schema => wrap(key, { type: 'array', items: ref(item) });
const deleted = (): Schema => ref('DeleteResult');

/** Every REST operation; a test walks the Express routers and fails when this list and they disagree. */
export const OPERATIONS: Operation[] = [
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

  { method: 'get', path: '/departments', tag: 'departments', summary: 'List departments', ok: { 200: list('departments', 'Department') } },
  {
    method: 'post',
    path: '/departments',
    tag: 'departments',
    summary: 'Create a department',
    body: CreateDepartmentInput,
    ok: { 201: wrap('department', ref('Department')) },
    errors: [409],
  },
  {
    method: 'get',
    path: '/departments/:id',
    tag: 'departments',
    summary: 'One department',
    ok: { 200: wrap('department', ref('Department')) },
  },
  {
    method: 'patch',
    path: '/departments/:id',
    tag: 'departments',
    summary: 'Update a department',
    body: UpdateDepartmentInput,
    ok: { 200: wrap('department', ref('Department')) },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/departments/:id',
    tag: 'departments',
    summary: 'Delete a department (409 while users, groups or grants refer to it)',
    ok: { 200: deleted() },
    errors: [409],
  },
  {
    method: 'get',
    path: '/departments/:id/members',
    tag: 'departments',
    summary: "A department's members",
    ok: { 200: list('members', 'UserSummary') },
  },
  {
    method: 'post',
    path: '/departments/:id/members',
    tag: 'departments',
    summary: 'Add users to a department',
    body: AddDepartmentMembersInput,
    ok: { 200: list('members', 'UserSummary') },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/departments/:id/members/:userId',
    tag: 'departments',
    summary: 'Remove a user from a department',
    ok: { 200: deleted() },
  },

  { method: 'get', path: '/groups', tag: 'groups', summary: 'List groups', query: ListGroupsQuery, ok: { 200: list('groups', 'Group') } },
  {
    method: 'post',
    path: '/groups',
    tag: 'groups',
    summary: 'Create a group',
    body: CreateGroupInput,
    ok: { 201: wrap('group', ref('Group')) },
    errors: [409],
  },
  { method: 'get', path: '/groups/:id', tag: 'groups', summary: 'One group with its members', ok: { 200: wrap('group', ref('Group')) } },
  {
    method: 'patch',
    path: '/groups/:id',
    tag: 'groups',
    summary: 'Update a group',
    body: UpdateGroupInput,
    ok: { 200: wrap('group', ref('Group')) },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/groups/:id',
    tag: 'groups',
    summary: 'Delete a group (409 while grants refer to it)',
    ok: { 200: deleted() },
    errors: [409],
  },
  {
    method: 'post',
    path: '/groups/:id/members',
    tag: 'groups',
    summary: 'Add members to a group',
    body: GroupMembersInput,
    ok: { 200: wrap('group', ref('Group')) },
    errors: [409],
  },
  { method: 'delete', path: '/groups/:id/members/:userId', tag: 'groups', summary: 'Remove a member from a group', ok: { 200: deleted() } },

  {
    method: 'get',
    path: '/projects',
    tag: 'projects',
    summary: 'The projects the caller can access, with their tier and its source',
    ok: { 200: list('projects', 'ProjectListItem') },
  },
  {
    method: 'post',
    path: '/projects',
    tag: 'projects',
    summary: 'Create a project (admin, superadmin)',
    body: CreateProjectInput,
    ok: { 201: wrap('project', ref('ProjectDetail')) },
  },
  {
    method: 'get',
    path: '/projects/:id',
    tag: 'projects',
    summary: 'One project with members and counts',
    ok: { 200: wrap('project', ref('ProjectDetail')) },
  },
  {
    method: 'patch',
    path: '/projects/:id',
    tag: 'projects',
    summary: 'Update a project (`edit`; `ownerId` needs `full`)',
    body: UpdateProjectInput,
    ok: { 200: wrap('project', ref('ProjectDetail')) },
  },
  {
    method: 'delete',
    path: '/projects/:id',
    tag: 'projects',
    summary: 'Delete a project and everything in it (`full`)',
    ok: { 200: deleted() },
  },
  {
    method: 'delete',
    path: '/projects/:id/members/:userId',
    tag: 'projects',
    summary: 'Remove a user from the visible member list (`edit`; grants stay)',
    ok: { 200: deleted() },
  },

  {
    method: 'post',
    path: '/projects/:projectId/grants',
    tag: 'grants',
    summary: 'Create or update the grant of a target (`full`)',
    body: UpsertGrantInput,
    ok: {
      201: {
        type: 'object',
        properties: { grant: ref('Grant'), action: { const: 'created' } },
        required: ['grant', 'action'],
        additionalProperties: false,
      },
      200: {
        type: 'object',
        properties: { grant: ref('Grant'), action: { const: 'updated' } },
        required: ['grant', 'action'],
        additionalProperties: false,
      },
    },
  },
  {
    method: 'get',
    path: '/projects/:projectId/grants',
    tag: 'grants',
    summary: "A project's grants (`use`)",
    ok: { 200: list('grants', 'Grant') },
  },
  {
    method: 'delete',
    path: '/projects/:projectId/grants/:grantId',
    tag: 'grants',
    summary: 'Delete a grant (`full`)',
    ok: { 200: deleted() },
  },
  {
    method: 'get',
    path: '/grants/by-user/:userId',
    tag: 'grants',
    summary: 'Every grant reaching a user, directly or through a group or department',
    ok: { 200: ref('GrantsByUser') },
  },

  {
    method: 'get',
    path: '/audit-log',
    tag: 'audit',
    summary: 'Grant changes, newest first (admin, superadmin)',
    query: AuditLogQuery,
    ok: {
      200: {
        type: 'object',
        properties: { entries: { type: 'array', items: ref('AuditEntry') }, total: { type: 'integer' } },
        required: ['entries', 'total'],
        additionalProperties: false,
      },
    },
  },

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

  {
    method: 'post',
    path: '/projects/:projectId/documents',
    tag: 'documents',
    summary: 'Upload documents (multipart, field `file`, repeatable); ingestion is queued',
    body: 'multipart',
    ok: { 202: list('documents', 'UploadResult') },
    errors: [429],
  },
  {
    method: 'get',
    path: '/projects/:projectId/documents',
    tag: 'documents',
    summary: "A project's documents, newest first (`use`)",
    query: ListDocumentsInput,
    ok: { 200: list('documents', 'Document') },
  },
  {
    method: 'get',
    path: '/documents/:id',
    tag: 'documents',
    summary: 'One document with its ingestion status and progress',
    ok: { 200: wrap('document', ref('Document')) },
  },
  {
    method: 'delete',
    path: '/documents/:id',
    tag: 'documents',
    summary: 'Delete a document and its chunks (`edit`)',
    ok: { 200: deleted() },
  },
  {
    method: 'post',
    path: '/documents/:id/reindex',
    tag: 'documents',
    summary: 'Read the stored file again (`edit`)',
    ok: { 202: wrap('document', ref('Document')) },
  },
  {
    method: 'get',
    path: '/chat/chunks/:chunkId/source',
    tag: 'chat',
    summary: 'The chunk a citation points at, with its surrounding paragraphs',
    ok: { 200: ref('ChunkSource') },
  },

  {
    method: 'post',
    path: '/chat/projects/:projectId',
    tag: 'chat',
    summary: 'Ask a question; the answer streams as Server-Sent Events',
    body: AskInput,
    ok: { 200: null },
    stream: true,
  },
  { method: 'get', path: '/chat/config', tag: 'chat', summary: 'Which chat modes this server offers', ok: { 200: ref('ChatModes') } },
  {
    method: 'get',
    path: '/chat/projects/:projectId/conversations',
    tag: 'chat',
    summary: "The caller's conversations in a project",
    query: ConversationListQuery,
    ok: { 200: list('conversations', 'ConversationSummary') },
  },
  {
    method: 'get',
    path: '/chat/conversations/:id',
    tag: 'chat',
    summary: "One of the caller's conversations with its messages",
    ok: { 200: wrap('conversation', ref('ConversationDetail')) },
  },
  {
    method: 'get',
    path: '/chat/recent',
    tag: 'chat',
    summary: "The caller's recent conversations across projects",
    query: ConversationListQuery,
    ok: { 200: list('conversations', 'RecentConversation') },
  },
];

const ERROR_TEXT: Record<number, string> = {
  400: 'validation_failed, with `details: [{field, message}]`',
  401: 'unauthorized: no, an expired or an invalid bearer token (login: `Invalid email or password`)',
  403: "forbidden (or the specific code): the caller's role or tier does not allow this",
  404: 'not_found',
  409: 'a conflict, named by its code (e.g. email_exists, ceo_exists, department_not_empty)',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited (with Retry-After)',
  500: 'internal_error (never a stack trace)',
  503: 'database_unavailable (login: not_bootstrapped)',
};

/** The error statuses an operation can answer, from what it takes and who may call it. */
function errorStatuses(op: Operation): number[] {
  const s = new Set<number>([500, 503]);
  if (op.auth !== false) s.add(401).add(403);
  // a malformed path parameter (e.g. not a uuid) is a 400 on some routes, a 404 on others
  if (op.body || op.query || op.path.includes(':')) s.add(400);
  if (op.body) s.add(413).add(415);
  if (op.path.includes(':') || op.auth !== false) s.add(404);
  for (const e of op.errors ?? []) s.add(e);
  // the public auth operations answer no 403 and 404 (a token either works or it does not)
  if (op.auth === false) s.delete(404);
  return [...s].sort();
}

const EVENT_SCHEMAS: Array<[string, string, string]> = [
  ['meta', 'ChatMetaEvent', 'first: the conversation, the assistant message id and the model'],
  ['sources', 'ChatSourcesEvent', 'the retrieved chunks (or web results) the answer may cite as [n]'],
  ['text', 'ChatTextEvent', 'zero or more; the deltas concatenated are the answer'],
  ['done', 'ChatDoneEvent', 'last on success'],
  ['error', 'ChatErrorEvent', 'last on failure'],
];

function streamResponse(): Schema {
  return {
    description: [
      'A `text/event-stream`. Each event is `event: <name>` and `data: <JSON>`; `: ping` comments every 15 s keep it open.',
      'Order: `meta`, `sources`, `text`…, then `done` or `error`; nothing follows either.',
      ...EVENT_SCHEMAS.map(([name, schema, what]) => `- \`${name}\` (${schema}): ${what}`),
    ].join('\n'),
    content: {
      'text/event-stream': {
        schema: {
          type: 'string',
          description: "The SSE frames; `x-events` gives the schema of each event's `data`",
          'x-events': Object.fromEntries(EVENT_SCHEMAS.map(([name, schema]) => [name, ref(schema)])),
        },
      },
    },
  };
}

const toOpenApiPath = (p: string) => `/api${p.replace(/:(\w+)/g, '{$1}')}`;

/** Query parameters from the input class's generated schema (the same class parseQuery validates). */
function queryParameters(schema: Schema): Schema[] {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) => ({ name, in: 'query', required: required.has(name), schema: s }));
}

/** Request schemas generated from the class-validator input classes; unknown fields are refused, as parse() does. */
function inputSchemas(): Record<string, Schema> {
  const generated = validationMetadatasToSchemas({
    refPointerPrefix: '#/components/schemas/',
    classTransformerMetadataStorage: defaultMetadataStorage as never,
  }) as Record<string, Schema>;
  return Object.fromEntries(Object.entries(generated).map(([name, s]) => [name, { ...s, additionalProperties: false }]));
}

let cached: Schema | null = null;

/** The OpenAPI 3.1 document of the REST API (built once per process). */
export function openApiDocument(): Schema {
  if (cached) return cached;
  const inputs = inputSchemas();
  const paths: Record<string, Record<string, Schema>> = {};
  for (const op of OPERATIONS) {
    const path = toOpenApiPath(op.path);
    const pathParams = [...op.path.matchAll(/:(\w+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const responses: Record<string, Schema> = {};
    for (const [status, schema] of Object.entries(op.ok)) {
      if (op.stream) responses[status] = streamResponse();
      else
        responses[status] =
          schema === null ? { description: 'No content' } : { description: 'Success', content: { 'application/json': { schema } } };
    }
    for (const status of errorStatuses(op)) {
      responses[String(status)] = { description: ERROR_TEXT[status], content: { 'application/json': { schema: ref('Error') } } };
    }
    const operation: Schema = {
      operationId: `${op.method}${op.path.replace(/[:/-](\w)/g, (_m, c: string) => c.toUpperCase()).replace(/[^\w]/g, '')}`,
      tags: [op.tag],
      summary: op.summary,
      parameters: [...pathParams, ...(op.query ? queryParameters(inputs[op.query.name]) : [])],
      responses,
      ...(op.auth === false ? { security: [] } : {}),
    };
    if (op.body === 'multipart') {
      operation.requestBody = {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              properties: {
                file: {
                  type: 'array',
                  maxItems: MAX_FILES_PER_UPLOAD,
                  items: { type: 'string', contentMediaType: 'application/octet-stream' },
                  description: 'PDF, DOCX, Markdown, plain text or HTML; repeat the field for several files',
                },
              },
              required: ['file'],
            },
          },
        },
      };
    } else if (op.body) {
      operation.requestBody = { required: !op.bodyOptional, content: { 'application/json': { schema: ref(op.body.name) } } };
    }
    (paths[path] ??= {})[op.method] = operation;
  }
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'DocQA API',
      version: '1.0.0',
      description:
        'REST and Server-Sent Events API of DocQA. Errors are `{"error": code, "message"?, "details"?}`. GraphQL is at `/graphql` (not described here).',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [...new Set(OPERATIONS.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The accessToken from POST /api/auth/login' },
      },
      schemas: { ...inputs, ...RESPONSE_SCHEMAS },
    },
  };
  return cached;
}
