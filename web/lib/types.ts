/**
 * The shapes the app reads from the public REST API. The wire shapes come from wire.generated.ts,
 * which `npm run schema` generates from the server's own schemas (src/presenters/schemas.ts), so the
 * app and the server cannot drift; the names below are the app's words for them, plus the few types
 * only the app has.
 */
import type {
  AdminProviderDto,
  CapabilitiesDto,
  ChatDoneEventDto,
  ChatModesDto,
  ChatErrorEventDto,
  ChatMetaEventDto,
  ChatSourcesEventDto,
  ChatTextEventDto,
  ChunkSourceDto,
  CitationDto,
  ConversationSummaryDto,
  DepartmentScopeDto,
  DocumentDto,
  DocumentTextDto,
  GrantDto,
  LoginUserDto,
  MeDto,
  MessageDto,
  ModelDto,
  ProjectDetailDto,
  ProjectListItemDto,
  ProviderTestResultDto,
  RecentConversationDto,
  SourceDto,
  UploadResultDto,
} from './wire.generated';

export type * from './wire.generated';

export type Tier = GrantDto['tier'];
export type PlatformRole = MeDto['platformRole'];
export type OrgPosition = MeDto['orgPosition'];

/** The signed-in user: what sign-in (LoginUser) and `GET /auth/me` (Me) both say. */
export type User = Pick<LoginUserDto, keyof LoginUserDto & keyof MeDto>;

/** GET /auth/capabilities: what the caller may do, from the rules the server applies (the app does not re-derive them). */
export type Capabilities = CapabilitiesDto;
/** Departments an action reaches, as the server says: every one, else those listed. */
export type DepartmentScope = DepartmentScopeDto;

/** Whether a scope the server gave reaches this department (or, without one, any department). */
export const reaches = (s: DepartmentScope, departmentId?: string): boolean =>
  s.all || (departmentId === undefined ? s.departmentIds.length > 0 : s.departmentIds.includes(departmentId));

export type ProjectSummary = ProjectListItemDto;
export type ProjectDetail = ProjectDetailDto;

export type DocumentStatus = DocumentDto['status'];
/** A document as listed, or as an upload answers it (with `duplicate`). */
export type DocumentInfo = DocumentDto & Partial<Pick<UploadResultDto, 'duplicate'>>;

/** GET /documents/:id/text: whole pages of a converted document's text. */
export type DocumentText = DocumentTextDto;
export type TextPage = DocumentTextDto['pages'][number];

export type Source = SourceDto;
export type Citation = CitationDto;
export type Message = MessageDto;
export type ConversationSummary = ConversationSummaryDto;
export type RecentConversation = RecentConversationDto;
export type ChatModes = ChatModesDto;

export type ChunkSource = ChunkSourceDto;
export type ChunkLocation = NonNullable<ChunkSourceDto['locations']>[number];

export type ModelChoice = ModelDto;
export type AdminProvider = AdminProviderDto;
export type ProviderTest = ProviderTestResultDto;

/** Who a grant can name. */
export type TargetType = 'user' | 'group' | 'department';

export type Grant = GrantDto;

/** One event of the chat stream (POST /api/chat/projects/:id): its name and its `data`. */
export type ChatEvent =
  | { event: 'meta'; data: ChatMetaEventDto }
  | { event: 'sources'; data: ChatSourcesEventDto }
  | { event: 'text'; data: ChatTextEventDto }
  | { event: 'done'; data: ChatDoneEventDto }
  | { event: 'error'; data: ChatErrorEventDto };
