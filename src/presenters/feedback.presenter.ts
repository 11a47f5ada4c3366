import type { FeedbackRating } from '../entities/base';
import type { FeedbackDto } from './dto.generated';
import { iso } from './time';

/** A feedback row as the service reads it (with its author and an excerpt of the answer). */
export interface FeedbackRow {
  id: string;
  messageId: string;
  conversationId: string;
  projectId: string;
  rating: FeedbackRating;
  comment: string | null;
  createdAt: Date;
  updatedAt: Date;
  user: { id: string; name: string; email: string } | null;
  answer: string;
}

/** POST /chat/messages/:messageId/feedback and GET /projects/:projectId/feedback entries. */
export function presentFeedback(f: FeedbackRow): FeedbackDto {
  return {
    id: f.id,
    messageId: f.messageId,
    conversationId: f.conversationId,
    projectId: f.projectId,
    rating: f.rating,
    comment: f.comment,
    createdAt: iso(f.createdAt),
    updatedAt: iso(f.updatedAt),
    user: f.user,
    answer: f.answer,
  };
}
