/** The shapes the app reads from the public REST API (docs/ and the service spec name them). */
export type Tier = 'use' | 'edit' | 'full';
export type PlatformRole = 'none' | 'admin' | 'engineer' | 'superadmin';

export interface User {
  id: string;
  email: string;
  name: string;
  platformRole: PlatformRole;
  orgPosition: string;
  departmentId: string | null;
}

/** Departments an action reaches, as the server says: every one, else those listed. */
export interface DepartmentScope {
  all: boolean;
  departmentIds: string[];
}

/** GET /auth/capabilities: what the caller may do, from the rules the server applies (the app does not re-derive them). */
export interface Capabilities {
  manageUsers: boolean;
  changePlatformRoles: boolean;
  createProjects: boolean;
  readAuditLog: boolean;
  listFeedback: boolean;
  manageProviders: boolean;
  departments: {
    read: DepartmentScope;
    create: boolean;
    delete: boolean;
    addMembers: boolean;
    edit: DepartmentScope;
    removeMembers: DepartmentScope;
  };
  groups: { read: DepartmentScope; edit: DepartmentScope };
}

/** Whether a scope the server gave reaches this department (or, without one, any department). */
export const reaches = (s: DepartmentScope, departmentId?: string): boolean =>
  s.all || (departmentId === undefined ? s.departmentIds.length > 0 : s.departmentIds.includes(departmentId));

export interface ProjectSummary {
  id: string;
  name: string;
  description: string | null;
  color: string;
  isPrivate: boolean;
  accessTier: Tier;
  accessSource: string;
  _count: { documents: number; conversations: number };
}

export interface ProjectDetail {
  id: string;
  name: string;
  description: string | null;
  color: string;
  isPrivate: boolean;
  instructions: string;
  settings: { model?: string; temperature?: number; topK?: number };
  _count: { documents: number; conversations: number; chunks: number };
}

export type DocumentStatus = 'queued' | 'processing' | 'ready' | 'failed';

export interface DocumentInfo {
  id: string;
  projectId: string;
  name: string;
  mimeType: string;
  size: number;
  status: DocumentStatus;
  progress: { pagesDone: number; pagesTotal: number };
  pageCount: number;
  chunkCount: number;
  embeddings: { model: string; chunksEmbedded: number; chunksTotal: number } | null;
  error: string | null;
  /** The format detected from the content (pdf, xlsx, pptx, eml, png, …); null for an unsupported file. */
  format: string | null;
  /** How the pages' text was obtained; null until read. */
  extraction: {
    method: 'text' | 'ocr' | 'mixed';
    ocrPages: number;
    ocrConfidence: number | null;
    pages: Array<{ from: number; to: number; method: 'text' | 'ocr'; confidence: number | null }>;
  } | null;
  createdAt: string;
  duplicate?: boolean;
}

export interface Source {
  id: string;
  documentId: string;
  documentName: string;
  pageNumber: number;
  snippet: string;
  url?: string;
}

export interface Citation {
  index: number;
  chunkId: string;
  documentId?: string;
  documentName: string;
  pageNumber: number;
  url?: string;
}

export interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  createdAt: string;
  citations: Citation[];
}

export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: string;
  messageCount: number;
}

export interface RecentConversation {
  id: string;
  title: string;
  projectId: string;
  project: { id: string; name: string; color: string };
  updatedAt: string;
}

export interface ChunkSource {
  documentId: string;
  documentName: string;
  pageNumber: number;
  chunkId: string;
  snippet: string;
  context: string;
  /** Where the chunk lies in the original, page by page; null before its document was analysed for it. */
  locations: ChunkLocation[] | null;
}

export interface ChunkLocation {
  page: number;
  start: number;
  end: number;
  text: string;
  /** Fractions of the page's width and height from its top-left corner (PDF and OCR pages). */
  boxes?: Array<{ x: number; y: number; w: number; h: number }>;
}

export interface ModelChoice {
  id: string;
  model: string;
  provider: string;
  isDefault: boolean;
}

export interface AdminProvider {
  id: string;
  name: string;
  slug: string;
  baseUrl: string;
  apiKey: string;
  models: string[];
  isDefault: boolean;
  isEnabled: boolean;
}

export type ProviderTest =
  { ok: true; latencyMs: number; status: number; sample: string } | { ok: false; latencyMs: number; status: number; error: string };

export type TargetType = 'user' | 'group' | 'department';

export interface Grant {
  id: string;
  tier: Tier;
  userId: string | null;
  groupId: string | null;
  departmentId: string | null;
  user: { id: string; name: string; email: string } | null;
  group: { id: string; name: string; department?: { name: string } } | null;
  department: { id: string; name: string } | null;
}

export interface ChatModes {
  docs: boolean;
  web: boolean;
  deep: boolean;
}

/** One event of the chat stream (POST /api/chat/projects/:id). */
export type ChatEvent =
  | { event: 'meta'; data: { conversationId: string; messageId: string; model: string } }
  | { event: 'sources'; data: { chunks: Source[] } }
  | { event: 'text'; data: { delta: string } }
  | { event: 'done'; data: { messageId: string; totalTokens: number } }
  | { event: 'error'; data: { type: string; message: string; detail?: string } };

/** GET /documents/:id/text: whole pages of a converted document's text. */
export interface DocumentText {
  documentId: string;
  documentName: string;
  pageCount: number;
  pages: TextPage[];
  /** The first page not in this answer (ask again with `from`); null at the end. */
  nextPage: number | null;
}

export interface TextPage {
  pageNumber: number;
  text: string;
  sections: Array<{ offset: number; title: string; level: number | null }>;
}
