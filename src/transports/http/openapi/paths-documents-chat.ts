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
import { deleted, list, page, ref, tagged, wrap, type Operation } from './operation';

const documents = tagged('documents');
const chat = tagged('chat');

export const DOCUMENTS_AND_CHAT: Operation[] = [
  documents.post(
    '/projects/:projectId/documents',
    'Upload documents (multipart, field `file`, repeatable); ingestion is queued',
    { 202: list('documents', 'UploadResult') },
    { body: 'multipart', errors: [429] },
  ),
  documents.get(
    '/projects/:projectId/documents',
    "A project's documents, newest first (`use`)",
    { 200: list('documents', 'Document') },
    { query: ListDocumentsInput },
  ),
  documents.get('/documents/:id', 'One document with its ingestion status and progress', { 200: wrap('document', ref('Document')) }),
  documents.get(
    '/documents/:id/original',
    'The stored original (`use`): `Range` (206, 416), `ETag`/`Last-Modified` (304); `nosniff`, `Content-Security-Policy: sandbox`, `inline` only for PDF and raster images, `attachment` otherwise',
    { 200: null, 206: null, 304: null, 416: null },
  ),
  documents.get(
    '/documents/:id/text',
    "A converted document's text for the reader view (`use`): whole pages from `from` up to 200,000 characters; 409 `no_converted_text` for a PDF or an image, `document_not_ready` before it is ready",
    { 200: ref('DocumentText') },
    { query: DocumentTextQuery, errors: [409] },
  ),
  documents.delete('/documents/:id', 'Delete a document and its chunks (`edit`)', { 200: deleted() }),
  documents.post('/documents/:id/reindex', 'Read the stored file again (`edit`)', { 202: wrap('document', ref('Document')) }),
  chat.get('/chat/chunks/:chunkId/source', 'The chunk a citation points at, with its surrounding paragraphs', { 200: ref('ChunkSource') }),
  chat.post(
    '/chat/projects/:projectId',
    'Ask a question; the answer streams as Server-Sent Events. It ends with an `error` event (message `unauthorized` or `forbidden`) when the caller is deactivated or deleted, or loses `use` on the project, or the project is deleted, while it streams; 429 over LIVE_STREAMS_PER_USER open streams. ' +
      "Regenerate with `replaces` (the conversation's last answer): that answer and its question leave the conversation, with their feedback; 404 when it is not the caller's answer in this project, 409 `not_last_answer` when a message follows it",
    { 200: null },
    { body: AskInput, errors: [409, 429], stream: true },
  ),
  chat.get(
    '/chat/messages/:messageId/stream',
    "Resume an answer's stream (Server-Sent Events) on any node: the events after `Last-Event-ID` (header, or `?lastEventId=`; none: from the start), then the rest live. Only the caller who asked, while they hold `use` on the project; 404 for anyone else or once the stream is forgotten (CHAT_STREAM_RETENTION_MINUTES after it ended)",
    { 200: null },
    { errors: [429], stream: true },
  ),
  chat.post(
    '/chat/messages/:messageId/stop',
    "Stop generating the caller's answer, on whichever node generates it (a stream's Stop: the answer otherwise goes on while nobody listens, so it can be resumed). What arrived is stored as an incomplete answer; an answer that already ended is left as it is. Only the caller who asked, while they hold `use`",
    { 202: ref('ChatStopResult') },
  ),
  chat.get('/chat/config', 'Which chat modes this server offers', { 200: ref('ChatModes') }),
  chat.get(
    '/chat/projects/:projectId/conversations',
    "The caller's conversations in a project; `search` keeps those whose title or any message holds the words",
    { 200: list('conversations', 'ConversationSummary') },
    { query: ConversationSearchQuery },
  ),
  chat.get('/chat/conversations/:id', "One of the caller's conversations with its messages", {
    200: wrap('conversation', ref('ConversationDetail')),
  }),
  chat.get(
    '/chat/recent',
    "The caller's recent conversations across projects",
    { 200: list('conversations', 'RecentConversation') },
    { query: ConversationListQuery },
  ),
  chat.patch(
    '/chat/conversations/:id',
    'Rename a conversation (its author only; platform staff who can read it get 403)',
    { 200: wrap('conversation', ref('ConversationDetail')) },
    { body: RenameConversationInput },
  ),
  chat.delete('/chat/conversations/:id', 'Delete a conversation with its messages and their feedback (its author only)', {
    200: deleted(),
  }),
  chat.get('/chat/conversations/:id/feedback', "The caller's own feedback on the answers of a conversation they can read", {
    200: list('feedback', 'Feedback'),
  }),
  chat.post(
    '/chat/messages/:messageId/feedback',
    "Thumbs up or down on an answer, with an optional comment (the conversation's author); giving it again replaces it",
    { 200: wrap('feedback', ref('Feedback')) },
    { body: FeedbackInput },
  ),
  chat.get(
    '/projects/:projectId/feedback',
    "Feedback on a project's answers, newest first (admin, superadmin)",
    { 200: page('feedback', 'Feedback') },
    { query: FeedbackListQuery },
  ),
];
