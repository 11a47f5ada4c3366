// REST operations: Documents and chat.
import {
  AskInput,
  ConversationListQuery,
  ConversationSearchQuery,
  FeedbackInput,
  FeedbackListQuery,
  RenameConversationInput,
} from '../../../services/chat.inputs';
import { DocumentTextQuery, ListDocumentsInput } from '../../../services/documents.inputs';
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
    method: 'get',
    path: '/documents/:id/text',
    tag: 'documents',
    summary:
      "A converted document's text for the reader view (`use`): whole pages from `from` up to 200,000 characters; 409 `no_converted_text` for a PDF or an image, `document_not_ready` before it is ready",
    query: DocumentTextQuery,
    ok: { 200: ref('DocumentText') },
    errors: [409],
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
      'Ask a question; the answer streams as Server-Sent Events. It ends with an `error` event (message `unauthorized` or `forbidden`) when the caller is deactivated or deleted, or loses `use` on the project, or the project is deleted, while it streams; 429 over LIVE_STREAMS_PER_USER open streams. ' +
      "Regenerate with `replaces` (the conversation's last answer): that answer and its question leave the conversation, with their feedback; 404 when it is not the caller's answer in this project, 409 `not_last_answer` when a message follows it",
    body: AskInput,
    ok: { 200: null },
    errors: [409, 429],
    stream: true,
  },
  {
    method: 'get',
    path: '/chat/messages/:messageId/stream',
    tag: 'chat',
    summary:
      "Resume an answer's stream (Server-Sent Events) on any node: the events after `Last-Event-ID` (header, or `?lastEventId=`; none: from the start), then the rest live. Only the caller who asked, while they hold `use` on the project; 404 for anyone else or once the stream is forgotten (CHAT_STREAM_RETENTION_MINUTES after it ended)",
    ok: { 200: null },
    errors: [429],
    stream: true,
  },
  {
    method: 'post',
    path: '/chat/messages/:messageId/stop',
    tag: 'chat',
    summary:
      "Stop generating the caller's answer, on whichever node generates it (a stream's Stop: the answer otherwise goes on while nobody listens, so it can be resumed). What arrived is stored as an incomplete answer; an answer that already ended is left as it is. Only the caller who asked, while they hold `use`",
    ok: { 202: ref('ChatStopResult') },
  },
  { method: 'get', path: '/chat/config', tag: 'chat', summary: 'Which chat modes this server offers', ok: { 200: ref('ChatModes') } },
  {
    method: 'get',
    path: '/chat/projects/:projectId/conversations',
    tag: 'chat',
    summary: "The caller's conversations in a project; `search` keeps those whose title or any message holds the words",
    query: ConversationSearchQuery,
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
  {
    method: 'patch',
    path: '/chat/conversations/:id',
    tag: 'chat',
    summary: 'Rename a conversation (its author only; platform staff who can read it get 403)',
    body: RenameConversationInput,
    ok: { 200: wrap('conversation', ref('ConversationDetail')) },
  },
  {
    method: 'delete',
    path: '/chat/conversations/:id',
    tag: 'chat',
    summary: 'Delete a conversation with its messages and their feedback (its author only)',
    ok: { 200: deleted() },
  },
  {
    method: 'get',
    path: '/chat/conversations/:id/feedback',
    tag: 'chat',
    summary: "The caller's own feedback on the answers of a conversation they can read",
    ok: { 200: list('feedback', 'Feedback') },
  },
  {
    method: 'post',
    path: '/chat/messages/:messageId/feedback',
    tag: 'chat',
    summary: "Thumbs up or down on an answer, with an optional comment (the conversation's author); giving it again replaces it",
    body: FeedbackInput,
    ok: { 200: wrap('feedback', ref('Feedback')) },
  },
  {
    method: 'get',
    path: '/projects/:projectId/feedback',
    tag: 'chat',
    summary: "Feedback on a project's answers, newest first (admin, superadmin)",
    query: FeedbackListQuery,
    ok: {
      200: {
        type: 'object',
        properties: { feedback: { type: 'array', items: ref('Feedback') }, total: { type: 'integer' } },
        required: ['feedback', 'total'],
        additionalProperties: false,
      },
    },
  },
];
