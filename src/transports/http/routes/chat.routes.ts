import { Router, Response } from 'express';
import {
  presentConversationDetail,
  presentConversationSummary,
  presentRecentConversation,
} from '../../../presenters/conversation.presenter';
import { presentFeedback } from '../../../presenters/feedback.presenter';
import {
  AskInput,
  ConversationListQuery,
  ConversationSearchQuery,
  FeedbackInput,
  FeedbackListQuery,
  RenameConversationInput,
} from '../../../services/chat.inputs';
import type { ChatEvent } from '../../../services/chat.service';
import { ValidationError } from '../../../errors';
import { parse, parseQuery } from '../../../validation';
import { RouteTable } from '../route';
import { abortOnClientClose, writeSse } from '../sse';
import type { Services } from '../../../services';

/** The stream's outcome and stage timings go into the request's log line. */
function logChatEvent(res: Response, e: ChatEvent): void {
  if (e.event === 'meta') res.locals.logExtra = { chat: { model: e.data.model, conversationId: e.data.conversationId } };
  const chat = (res.locals.logExtra as { chat?: Record<string, unknown> } | undefined)?.chat ?? {};
  if (e.event === 'done') res.locals.logExtra = { chat: { ...chat, outcome: 'done', totalTokens: e.data.totalTokens, ...e.data.timings } };
  if (e.event === 'error') res.locals.logExtra = { chat: { ...chat, outcome: 'error', error: e.data.message, detail: e.data.detail } };
}

/** `Last-Event-ID` (or `?lastEventId=`): the id of the last event the client saw; none means from the start. */
function lastEventId(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 0;
  if (!/^\d{1,9}$/.test(raw.trim()))
    throw ValidationError.field('Last-Event-ID', 'Last-Event-ID must be the id of an event of this stream');
  return Number(raw.trim());
}

export function chatRoutes(s: Services): Router {
  const r = new RouteTable(s.tokens);
  // access is checked before the first byte: a denied caller gets a plain JSON 403/404, never a stream
  r.post('/chat/projects/:projectId', { auth: 'required' }, async (req, res) => {
    const input = await parse(AskInput, req.body);
    // no client signal (issue 38): a dropped client resumes later, the answer goes on meanwhile
    const events = await s.chat.ask(req.actor, req.params.projectId, input);
    await writeSse(res, events, {
      onEvent: (e) => {
        logChatEvent(res, e as ChatEvent);
        // the stream's milestones as lines of their own (the request's child logger carries its id)
        if (e.event !== 'text') req.log.debug({ event: e.event }, 'chat event');
      },
    });
  });
  r.get('/chat/messages/:messageId/stream', { auth: 'required' }, async (req, res) => {
    const after = lastEventId(req.get('last-event-id') ?? (typeof req.query.lastEventId === 'string' ? req.query.lastEventId : undefined));
    const events = await s.chat.resume(req.actor, req.params.messageId, after, abortOnClientClose(res));
    await writeSse(res, events);
  });
  r.post('/chat/messages/:messageId/stop', { auth: 'required', status: 202 }, (req) => s.chat.stopAnswer(req.actor, req.params.messageId));
  r.get('/chat/config', { auth: 'required' }, (req) => s.chat.modes(req.actor));
  r.get('/chat/projects/:projectId/conversations', { auth: 'required' }, async (req) => {
    const page = await parseQuery(ConversationSearchQuery, req.query, ['limit', 'offset']);
    return {
      conversations: (await s.conversations.list(req.actor, req.params.projectId, page)).map(presentConversationSummary),
    };
  });
  r.get('/chat/conversations/:id', { auth: 'required' }, async (req) => {
    const { conversation, messages } = await s.conversations.get(req.actor, req.params.id);
    return { conversation: presentConversationDetail(conversation, messages) };
  });
  r.patch('/chat/conversations/:id', { auth: 'required' }, async (req) => {
    const input = await parse(RenameConversationInput, req.body);
    const { conversation, messages } = await s.conversations.rename(req.actor, req.params.id, input);
    return { conversation: presentConversationDetail(conversation, messages) };
  });
  r.delete('/chat/conversations/:id', { auth: 'required' }, async (req) => ({
    success: true,
    ...(await s.conversations.delete(req.actor, req.params.id)),
  }));
  r.get('/chat/conversations/:id/feedback', { auth: 'required' }, async (req) => ({
    feedback: (await s.feedback.mine(req.actor, req.params.id)).map(presentFeedback),
  }));
  r.post('/chat/messages/:messageId/feedback', { auth: 'required' }, async (req) => ({
    feedback: presentFeedback(await s.feedback.give(req.actor, req.params.messageId, await parse(FeedbackInput, req.body))),
  }));
  r.get('/projects/:projectId/feedback', { auth: 'required' }, async (req) => {
    const q = await parseQuery(FeedbackListQuery, req.query, ['limit', 'offset']);
    const { feedback, total } = await s.feedback.list(req.actor, req.params.projectId, q);
    return { feedback: feedback.map(presentFeedback), total };
  });
  r.get('/chat/recent', { auth: 'required' }, async (req) => {
    const page = await parseQuery(ConversationListQuery, req.query, ['limit', 'offset']);
    return { conversations: (await s.conversations.recent(req.actor, page)).map(presentRecentConversation) };
  });
  return r.router;
}
