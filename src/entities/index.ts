export * from './base';
export { User } from './user.entity';
export { Department } from './department.entity';
export { Group, GroupMember } from './group.entity';
export { Project, ProjectMember, ProjectGrant, AuditEntry } from './project.entity';
export type { ProjectSettings } from './project.entity';
export { Provider } from './provider.entity';
export { Conversation, Message } from './conversation.entity';
export type { Citation } from './conversation.entity';
export { MessageFeedback } from './feedback.entity';
export { Document, Chunk, TermStat, TermPosting, ProjectIndexStats } from './document.entity';
export { RefreshToken } from './refresh-token.entity';
export { Setting, RateLimitCounter } from './setting.entity';
export { ChunkEmbedding } from './chunk-embedding.entity';
export { ChatStream, ChatStreamEvent } from './chat-stream.entity';
export { ApiKey, ApiKeyAddress } from './api-key.entity';

import { User } from './user.entity';
import { Department } from './department.entity';
import { Group, GroupMember } from './group.entity';
import { Project, ProjectMember, ProjectGrant, AuditEntry } from './project.entity';
import { Provider } from './provider.entity';
import { Conversation, Message } from './conversation.entity';
import { MessageFeedback } from './feedback.entity';
import { Document, Chunk, TermStat, TermPosting, ProjectIndexStats } from './document.entity';
import { RefreshToken } from './refresh-token.entity';
import { Setting, RateLimitCounter } from './setting.entity';
import { ChunkEmbedding } from './chunk-embedding.entity';
import { ChatStream, ChatStreamEvent } from './chat-stream.entity';
import { ApiKey, ApiKeyAddress } from './api-key.entity';

export const ALL_ENTITIES = [
  ApiKey,
  ApiKeyAddress,
  User,
  Department,
  Group,
  GroupMember,
  Project,
  ProjectMember,
  ProjectGrant,
  AuditEntry,
  Provider,
  Conversation,
  Message,
  MessageFeedback,
  Document,
  Chunk,
  TermStat,
  TermPosting,
  ProjectIndexStats,
  RefreshToken,
  Setting,
  RateLimitCounter,
  ChunkEmbedding,
  ChatStream,
  ChatStreamEvent,
];
