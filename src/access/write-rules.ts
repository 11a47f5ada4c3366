import type { PlatformRole } from '../entities/base';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import type { Actor } from './actor';
import { tierAtLeast, type Access } from './resolver';

/**
 * Rules of writes that go beyond a role gate or a tier: the superadmin account, platform-role
 * changes and ownership transfers. Services call them; they decide.
 */

/** POST /users (spec rule 1): only bootstrap creates the superadmin. */
export function requireCreatableRole(role: PlatformRole): void {
  if (role === 'superadmin') throw new ForbiddenError('forbidden_role', 'A superadmin cannot be created through the API');
}

/** The superadmin's account is theirs alone: an admin could otherwise take it over by password or email. */
export function requireAccountEditor(actor: Actor, target: { platformRole: PlatformRole }): void {
  if (target.platformRole === 'superadmin' && actor.platformRole !== 'superadmin')
    throw new ForbiddenError('forbidden', 'Only the superadmin can change the superadmin account');
}

/**
 * PATCH /users/:id changing platformRole: nobody sets superadmin (spec rule 3), the superadmin's
 * role is fixed (DESIGN §3), and every other change goes to or from admin/engineer, which only the
 * superadmin may make (spec rule 2) — an admin not even for themselves (admin → engineer would hand
 * them provider administration).
 */
export function requirePlatformRoleChange(actor: Actor, target: { platformRole: PlatformRole }, to: PlatformRole): void {
  if (to === 'superadmin') throw new ForbiddenError('forbidden_role', 'platformRole superadmin cannot be set');
  if (target.platformRole === 'superadmin') throw new ConflictError('singleton_immutable', "The superadmin's platformRole cannot change");
  if (actor.platformRole !== 'superadmin') throw new ForbiddenError('forbidden_role', 'Only the superadmin can change a platformRole');
}

/** The superadmin cannot be deactivated. */
export function requireDeactivatable(target: { platformRole: PlatformRole }): void {
  if (target.platformRole === 'superadmin') throw new ForbiddenError('forbidden', 'The superadmin cannot be deactivated');
}

/** DELETE /users/:id: never the superadmin, never oneself. */
export function requireDeletable(actor: Actor, target: { id: string; platformRole: PlatformRole }): void {
  if (target.platformRole === 'superadmin') throw new ForbiddenError('forbidden', 'The superadmin cannot be deleted');
  if (target.id === actor.id) throw new ForbiddenError('forbidden', 'You cannot delete your own account');
}

/** PATCH /projects/:id ownerId (spec rule 1): transferring ownership is a `full` tier operation. */
export function requireOwnerTransfer(access: Access): void {
  if (!tierAtLeast(access.tier, 'full')) throw new ForbiddenError('forbidden', 'Changing the owner requires the full tier on the project');
}

/**
 * Renaming or deleting a conversation, and feedback on its answers: its author only. Platform staff
 * may read anyone's conversation (read-rules), but a person's conversation and their opinion of
 * an answer stay theirs to change.
 */
export function requireConversationAuthor(actor: Actor, conversation: { userId: string | null }): void {
  if (conversation.userId !== actor.id) throw new ForbiddenError('forbidden', "Only the conversation's author can change it");
}

/** Feedback is given on answers, not on questions. */
export function requireAnswerMessage(message: { role: string }): void {
  if (message.role !== 'assistant') throw ValidationError.field('messageId', 'Feedback is given on answers (assistant messages) only');
}

/** What `requireReplaceableAnswer` needs to know of the answer a question replaces. */
export interface ReplacedAnswer {
  role: string;
  conversationId: string;
  projectId: string;
  /** The conversation's author. */
  userId: string | null;
  /** No message follows it in its conversation. */
  isLast: boolean;
}

/**
 * Regenerating (a question with `replaces`): the last answer of one of the caller's own
 * conversations in the project asked, which then leaves the conversation with its question. Any
 * other message is the conversation's 404 (ids reveal nothing), a question is a 400, and an answer
 * that is no longer the last a 409. Returns the conversation the new question goes to.
 */
export function requireReplaceableAnswer(
  actor: Actor,
  asked: { projectId: string; conversationId?: string },
  answer: ReplacedAnswer | null,
): string {
  if (
    !answer ||
    answer.userId !== actor.id ||
    answer.projectId !== asked.projectId ||
    (asked.conversationId !== undefined && asked.conversationId !== answer.conversationId)
  )
    throw new NotFoundError('not_found', 'The answer to replace is not in a conversation of yours in this project');
  if (answer.role !== 'assistant') throw ValidationError.field('replaces', 'Only an answer (an assistant message) can be replaced');
  if (!answer.isLast) throw new ConflictError('not_last_answer', 'Only the last answer of a conversation can be regenerated');
  return answer.conversationId;
}
