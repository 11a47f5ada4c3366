/**
 * JSON Schemas (OpenAPI 3.1 / JSON Schema 2020-12) of the wire shapes the presenters in this
 * folder build, written once here for the OpenAPI document. Objects are closed
 * (`additionalProperties: false`) so a presenter that grows a field without its schema fails the
 * e2e suite, which checks every REST response against the document.
 */
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, ORG_POSITIONS, PLATFORM_ROLES, PROVIDER_TYPES, TIERS, USER_STATUSES } from '../domain/values';
import { CHAT_SCHEMAS } from './chat-schemas';
import { documentFields, documentText } from './document-schemas';
import { arrayOf, bool, num, dateTime, enumOf, int, nullable, obj, ref, Schema, str, uuid } from './schema-builders';

const platformRole = enumOf(...PLATFORM_ROLES);
const orgPosition = enumOf(...ORG_POSITIONS);
const tier = enumOf(...TIERS);
const userStatus = enumOf(...USER_STATUSES);

/** Who a user is: the fields every user shape starts with. */
const userIdentity = { id: uuid, email: str, name: str, platformRole, orgPosition, departmentId: nullable(uuid) };

const userRecord = {
  ...userIdentity,
  avatarColor: str,
  status: userStatus,
  lastLoginAt: nullable(dateTime),
  createdAt: dateTime,
};

/**
 * A project's own fields and its visible members (presentProjectBase plus `members`), in the list and
 * the detail: fresh objects for each (validators dereference `$ref`s in place, so none is shared).
 */
const projectFields = (): Record<string, Schema> => ({
  id: uuid,
  name: str,
  description: nullable(str),
  color: str,
  isPrivate: bool,
  instructions: str,
  settings: ref('ProjectSettings'),
  ownerId: nullable(uuid),
  createdBy: nullable(uuid),
  createdAt: dateTime,
  updatedAt: dateTime,
  members: arrayOf(ref('ProjectMember')),
});

/**
 * Where a chunk's text lies in its document: per page, characters [start, end) of the page's
 * converted text, and on PDF and OCR'd pages the boxes that text is drawn in (fractions of the
 * page's width and height from its top-left corner).
 */
const chunkLocation = obj(
  {
    page: int,
    start: int,
    end: int,
    text: { ...str, description: "the part of the chunk's text on this page" },
    boxes: arrayOf(obj({ x: num, y: num, w: num, h: num })),
  },
  ['boxes'],
);

/** Component schemas, by name. */
export const RESPONSE_SCHEMAS: Record<string, Schema> = {
  Error: {
    ...obj(
      {
        error: {
          type: 'string',
          description: 'A stable code: validation_failed, unauthorized, forbidden, not_found, rate_limited, … (or the login message)',
        },
        message: str,
        details: arrayOf(obj({ field: str, message: str })),
      },
      ['message', 'details'],
    ),
    description: 'Every error answer (DESIGN §3)',
  },
  DeleteResult: obj({ success: { const: true }, id: uuid }),
  LoginUser: obj({ ...userIdentity, avatarColor: str }),
  Me: obj({
    ...userIdentity,
    status: userStatus,
    lastLoginAt: nullable(dateTime),
    createdAt: dateTime,
  }),
  LoginResult: obj({ user: ref('LoginUser'), accessToken: str, refreshToken: str }),
  TokenPair: obj({ accessToken: str, refreshToken: str }),
  /** GET /auth/sso: what the sign-in page offers (single sign-on's button, the password form). */
  LoginOptions: obj({ oidc: nullable(obj({ name: str })), passwordLogin: bool }),
  DepartmentRef: obj({ id: uuid, name: str, color: str }),
  /** Departments an action reaches: every one, else those listed (a manager's own). */
  DepartmentScope: obj({ all: bool, departmentIds: arrayOf(uuid) }),
  DepartmentCapabilities: obj({
    read: ref('DepartmentScope'),
    create: bool,
    delete: bool,
    addMembers: bool,
    edit: ref('DepartmentScope'),
    removeMembers: ref('DepartmentScope'),
  }),
  GroupCapabilities: obj({
    read: ref('DepartmentScope'),
    edit: { ...ref('DepartmentScope'), description: "create, rename, delete and change the members of the department's groups" },
  }),
  Capabilities: {
    ...obj({
      manageUsers: bool,
      changePlatformRoles: bool,
      createProjects: bool,
      readAuditLog: bool,
      listFeedback: bool,
      manageProviders: bool,
      departments: ref('DepartmentCapabilities'),
      groups: ref('GroupCapabilities'),
    }),
    description: 'What the caller may do in the organisation, from the same rules the server applies (GET /auth/capabilities)',
  },
  User: obj(userRecord),
  UserListEntry: obj({ ...userRecord, department: nullable(ref('DepartmentRef')) }),
  UserSummary: obj({
    id: uuid,
    name: str,
    email: str,
    avatarColor: str,
    avatarUrl: nullable(str),
    platformRole,
    orgPosition,
    departmentId: nullable(uuid),
    status: userStatus,
  }),
  MemberUser: obj({ id: uuid, name: str, email: str, avatarUrl: nullable(str), platformRole, orgPosition, departmentId: nullable(uuid) }),
  Department: obj({ id: uuid, name: str, color: str, description: str, _count: obj({ members: int, groups: int, grants: int }) }, [
    '_count',
  ]),
  Group: obj(
    {
      id: uuid,
      name: str,
      description: nullable(str),
      departmentId: uuid,
      department: nullable(ref('DepartmentRef')),
      memberCount: int,
      members: arrayOf(ref('UserSummary')),
      createdAt: dateTime,
    },
    ['members'],
  ),
  ProjectSettings: obj(
    {
      model: nullable(str),
      temperature: nullable({ type: 'number' }),
      topK: nullable(int),
      embeddingModel: nullable(str),
      rerankModel: nullable(str),
    },
    ['model', 'temperature', 'topK', 'embeddingModel', 'rerankModel'],
  ),
  ProjectMember: obj({ projectId: uuid, userId: uuid, addedAt: dateTime, user: ref('MemberUser') }),
  ProjectListItem: obj({
    ...projectFields(),
    _count: obj({ documents: int, conversations: int }),
    accessTier: tier,
    accessSource: enumOf('platform', 'owner', 'user', 'group', 'department', 'public'),
  }),
  ProjectDetail: obj({
    ...projectFields(),
    _count: obj({ documents: int, conversations: int, chunks: int }),
  }),
  ProjectRef: obj({ id: uuid, name: str, color: str, isPrivate: bool, ownerId: nullable(uuid) }),
  Grant: obj({
    id: uuid,
    projectId: uuid,
    userId: nullable(uuid),
    groupId: nullable(uuid),
    departmentId: nullable(uuid),
    tier,
    grantedById: nullable(uuid),
    createdAt: dateTime,
    updatedAt: dateTime,
    user: nullable(obj({ id: uuid, name: str, email: str })),
    group: nullable(obj({ id: uuid, name: str, department: obj({ name: str }) })),
    department: nullable(ref('DepartmentRef')),
  }),
  GrantsByUser: obj({
    direct: arrayOf(obj({ projectId: uuid, tier, project: ref('ProjectRef') })),
    viaGroup: arrayOf(obj({ projectId: uuid, tier, group: obj({ id: uuid, name: str }), project: ref('ProjectRef') })),
    viaDepartment: arrayOf(obj({ projectId: uuid, tier, department: ref('DepartmentRef'), project: ref('ProjectRef') })),
  }),
  ApiKey: obj({
    id: uuid,
    name: str,
    prefix: { type: 'string', description: 'The first characters of the secret (`dq_` and 8 more), to recognise the key' },
    projectIds: { ...nullable(arrayOf(uuid)), description: 'The projects the key is limited to; null: every project its owner reaches' },
    tier,
    expiresAt: nullable(dateTime),
    lastUsedAt: nullable(dateTime),
    createdAt: dateTime,
  }),
  CreatedKey: obj({
    key: ref('ApiKey'),
    secret: { type: 'string', description: 'The key itself (`dq_…`), shown this once: only its hash is stored' },
  }),
  AuditEntry: obj({
    id: uuid,
    action: enumOf(...AUDIT_ACTIONS),
    actorId: nullable(uuid),
    projectId: { ...nullable(uuid), description: 'null for entries about a user (role, status, memberships)' },
    targetType: enumOf(...AUDIT_TARGET_TYPES),
    targetId: uuid,
    metadata: {
      type: 'object',
      description:
        '`tier`, `previousTier`, and per action further keys: `reason`; `isPrivate`/`previousIsPrivate`; `previousOwnerId`; ' +
        '`role`/`previousRole` (user_role_changed); `status`/`previousStatus` (user_status_changed); `groupId` (group_member_*); ' +
        '`departmentId` (department_member_*); `name`, `projectIds`, `platform`, `expiresAt` (key_created); `address` ' +
        '(key_used_from_new_address); `name`, `ownerId` (key_revoked)',
    },
    createdAt: dateTime,
    actorName: { ...nullable(str), description: "the actor's name now; null for the system or a deleted user" },
    projectName: { ...nullable(str), description: "the project's name now; null when there is none or it was deleted" },
    targetName: { ...nullable(str), description: "the target's name now (a key's from the entry); null once deleted" },
  }),
  Document: obj(documentFields),
  UploadResult: {
    ...obj({ ...documentFields, duplicate: bool }),
    description: 'A document of an upload, with `duplicate: true` when identical content already existed in the project',
  },
  ChunkSource: obj({
    documentId: uuid,
    documentName: str,
    pageNumber: int,
    chunkId: uuid,
    snippet: str,
    context: str,
    locations: {
      ...nullable(arrayOf(chunkLocation)),
      description: 'Where the chunk lies in the original, page by page; null for a document not yet analysed for it (use snippet)',
    },
  }),
  DocumentText: documentText,
  PublicProvider: obj({
    id: uuid,
    name: str,
    slug: str,
    models: arrayOf(str),
    embeddingModels: arrayOf(str),
    rerankModels: arrayOf(str),
    isDefault: bool,
    isEnabled: bool,
  }),
  AdminProvider: obj({
    id: uuid,
    name: str,
    slug: str,
    type: enumOf(...PROVIDER_TYPES),
    baseUrl: str,
    apiKey: { type: 'string', description: 'The stored key masked (prefix…suffix), "" when none is set' },
    hasApiKey: bool,
    models: arrayOf(str),
    embeddingModels: arrayOf(str),
    rerankModels: arrayOf(str),
    isDefault: bool,
    isEnabled: bool,
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
  Model: obj({
    id: { type: 'string', description: '`<provider_slug>/<model>`' },
    model: str,
    provider: str,
    providerSlug: str,
    providerId: uuid,
    isDefault: bool,
  }),
  ProviderTestResult: {
    oneOf: [
      obj({ ok: { const: true }, latencyMs: int, status: int, sample: str }),
      obj({ ok: { const: false }, latencyMs: int, status: { type: 'integer', description: '0 when no response came' }, error: str }),
    ],
  },
  ...CHAT_SCHEMAS,
};
