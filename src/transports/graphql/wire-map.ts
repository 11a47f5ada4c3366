/**
 * The GraphQL type each wire shape (a JSON Schema in presenters/schemas.ts, and its generated DTO)
 * appears as. The graph is one connected type per resource, so several REST shapes of a resource
 * (a list entry, a detail, a reference) map to the same type, which holds every field of each.
 * `null`: the shape has no GraphQL counterpart. `renamed`: REST field → GraphQL field.
 *
 * test/unit/wire-shapes.test.ts walks every shape and fails when a field is missing from the
 * GraphQL type, is non-null there but nullable in REST, has another kind, or when a shape is not
 * listed here.
 */
type GraphqlCounterpart = { type: string; renamed?: Record<string, string> } | null;

/** A shape whose REST `_count` is the GraphQL type's `counts` field. */
const withCounts = (type: string): GraphqlCounterpart => ({ type, renamed: { _count: 'counts' } });

export const GRAPHQL_TYPE_OF: Record<string, GraphqlCounterpart> = {
  Error: null, // GraphQL errors carry the code in `extensions.code`
  LoginOptions: null, // the sign-in page's REST read before anyone is signed in; single sign-on is a browser redirect flow
  DeleteResult: { type: 'DeleteResult' },
  LoginUser: { type: 'User' },
  Me: { type: 'User' },
  LoginResult: { type: 'LoginPayload' },
  TokenPair: { type: 'LoginPayload' },
  DepartmentRef: { type: 'Department' },
  DepartmentScope: { type: 'DepartmentScope' },
  DepartmentCapabilities: { type: 'DepartmentCapabilities' },
  GroupCapabilities: { type: 'GroupCapabilities' },
  Capabilities: { type: 'Capabilities' },
  User: { type: 'User' },
  UserListEntry: { type: 'User' },
  UserSummary: { type: 'User' },
  MemberUser: { type: 'User' },
  Department: withCounts('Department'),
  Group: { type: 'Group' },
  ProjectSettings: { type: 'ProjectSettings' },
  ProjectMember: { type: 'ProjectMember' },
  ProjectListItem: withCounts('Project'),
  ProjectDetail: withCounts('Project'),
  ProjectRef: { type: 'Project' },
  Grant: { type: 'ProjectGrant' },
  GrantsByUser: { type: 'GrantsByUser' },
  AuditEntry: { type: 'AuditEntry' },
  ApiKey: { type: 'ApiKey' },
  CreatedKey: { type: 'CreatedKey' },
  Document: { type: 'Document' },
  UploadResult: { type: 'Document' },
  ChunkSource: { type: 'ChunkSource' },
  DocumentText: { type: 'DocumentText' },
  PublicProvider: { type: 'Provider' },
  AdminProvider: { type: 'Provider' },
  Model: { type: 'Model' },
  ProviderTestResult: { type: 'ProviderTestResult' }, // REST's two outcomes in one object, the other outcome's fields null
  ChatModes: { type: 'ChatConfig' },
  ChatStopResult: null, // GraphQL stops an answer by ending its subscription
  ConversationSummary: withCounts('Conversation'),
  RecentConversation: { type: 'Conversation' },
  Citation: { type: 'Citation' },
  Message: { type: 'Message' },
  ConversationDetail: { type: 'Conversation' },
  Source: { type: 'ChatSource' },
  ChatMetaEvent: { type: 'ChatMeta' },
  ChatSourcesEvent: { type: 'ChatSources' },
  ChatTextEvent: { type: 'ChatText' },
  ChatDoneEvent: { type: 'ChatDone' },
  ChatErrorEvent: { type: 'ChatError' },
  Feedback: { type: 'Feedback' },
  ChatModel: { type: 'ChatModel' },
  EffectiveAccess: { type: 'EffectiveAccess' },
};
