// REST operations: Documents and chat.
import { AskInput, ConversationListQuery } from '../../../services/chat.inputs';
import { ListDocumentsInput } from '../../../services/documents.inputs';
import { ref, wrap, list, deleted, type Operation } from './operation';

export const DOCUMENTS_AND_CHAT: Operation[] = [
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
    method: 'get',
    path: '/documents/:id/original',
    tag: 'documents',
    summary:
      'The stored original (`use`): `Range` (206, 416), `ETag`/`Last-Modified` (304); `nosniff`, `Content-Security-Policy: sandbox`, `inline` only for PDF and raster images, `attachment` otherwise',
    ok: { 200: null, 206: null, 304: null, 416: null },
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
    summary:
      'Ask a question; the answer streams as Server-Sent Events. It ends with an `error` event (message `unauthorized` or `forbidden`) when the caller is deactivated or deleted, or loses `use` on the project, or the project is deleted, while it streams; 429 over LIVE_STREAMS_PER_USER open streams',
    body: AskInput,
    ok: { 200: null },
    errors: [429],
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
