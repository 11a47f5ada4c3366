/** JSON Schemas of the chat wire shapes: conversations, messages and the chat stream's events (see schemas.ts). */
import { FEEDBACK_RATINGS, MESSAGE_ROLES } from '../domain/values';
import { arrayOf, bool, dateTime, enumOf, int, nullable, obj, ref, Schema, str, uuid } from './schema-builders';

export const CHAT_SCHEMAS: Record<string, Schema> = {
  ChatModes: obj({ docs: bool, web: bool, deep: bool }),
  ChatStopResult: {
    ...obj({ messageId: uuid, stopping: { const: true } }),
    description: 'The stop was asked of the node generating the answer',
  },
  ConversationSummary: obj({
    id: uuid,
    title: str,
    createdAt: dateTime,
    updatedAt: dateTime,
    messageCount: int,
    _count: obj({ messages: int }),
  }),
  RecentConversation: obj({
    id: uuid,
    title: str,
    projectId: uuid,
    project: obj({ id: uuid, name: str, color: str }),
    updatedAt: dateTime,
  }),
  Citation: obj({ index: int, chunkId: str, documentId: uuid, documentName: str, pageNumber: int, url: str }, ['url', 'documentId']),
  Message: obj({
    id: uuid,
    role: enumOf(...MESSAGE_ROLES),
    content: str,
    createdAt: dateTime,
    citations: arrayOf(ref('Citation')),
    incomplete: bool,
  }),
  ConversationDetail: obj({
    id: uuid,
    title: str,
    projectId: uuid,
    createdAt: dateTime,
    updatedAt: dateTime,
    messages: arrayOf(ref('Message')),
  }),
  Source: obj(
    {
      id: { type: 'string', description: 'a chunk id, or `web-N` for web results' },
      documentId: { type: 'string', description: 'a document id, or the URL of a web result' },
      documentName: str,
      pageNumber: int,
      snippet: str,
      url: str,
    },
    ['url'],
  ),
  ChatMetaEvent: obj({ conversationId: uuid, messageId: uuid, model: str }),
  ChatSourcesEvent: obj({ chunks: arrayOf(ref('Source')) }),
  ChatTextEvent: obj({ delta: str }),
  ChatDoneEvent: obj({
    messageId: uuid,
    totalTokens: int,
    timings: obj(
      {
        retrievalMs: int,
        firstTokenMs: nullable(int),
        totalMs: int,
        embeddingMs: { ...int, description: 'Part of retrievalMs spent waiting for the embeddings provider; absent when none was asked' },
        rerankMs: { ...int, description: 'Part of retrievalMs spent waiting for the reranker; absent when none ran' },
      },
      ['embeddingMs', 'rerankMs'],
    ),
  }),
  ChatErrorEvent: obj({
    type: { const: 'error' },
    message: {
      ...enumOf('LLM_API_ERROR', 'SEARCH_API_ERROR', 'SERVER_SHUTTING_DOWN', 'INTERNAL_ERROR', 'unauthorized', 'forbidden'),
      description:
        'unauthorized: the caller was deactivated or deleted mid-answer; forbidden: the caller lost use on the project, or it was deleted',
    },
    detail: str,
  }),
  Feedback: obj({
    id: uuid,
    messageId: uuid,
    conversationId: uuid,
    projectId: uuid,
    rating: enumOf(...FEEDBACK_RATINGS),
    comment: nullable(str),
    createdAt: dateTime,
    updatedAt: dateTime,
    user: { ...nullable(obj({ id: uuid, name: str, email: str })), description: 'who gave it; null once that user is deleted' },
    answer: { ...str, description: 'the beginning of the answer the feedback is about (in the admin list, for context)' },
  }),
  ChatModel: obj({
    model: {
      ...nullable(obj({ label: str, source: enumOf('provider', 'environment') })),
      description:
        'The model chat uses when a question and its project name none (provider resolution, DESIGN §8), and whether it comes from a provider or the LLM_* environment; null when chat has no model at all',
    },
  }),
  EffectiveAccess: obj({
    projectId: uuid,
    userId: uuid,
    tier: { oneOf: [enumOf('use', 'edit', 'full'), { type: 'null' }] },
    source: {
      oneOf: [enumOf('platform', 'owner', 'user', 'group', 'department', 'public'), { type: 'null' }],
      description: 'which rule of the access resolver gives the tier; null (with tier null) when the user has no access',
    },
  }),
};
