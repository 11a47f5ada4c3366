import { performance } from 'node:perf_hooks';
import type { Actor } from '../access/actor';
import { requireTier } from '../access/read-rules';
import { requireChatStream } from '../access/stream-rules';
import { Citation, newId } from '../entities';
import { ValidationError } from '../errors';
import { streamChatCompletion } from '../llm/openai-client';
import { buildPrompt, ContextItem, estimateTokens } from '../llm/prompt';
import { UpstreamAbortedError, UpstreamError } from '../llm/upstream-http';
import { presentSource } from '../presenters/conversation.presenter';
import { AskInput, ChatMode } from './chat.inputs';
import { citationsFor, prepareQuestion, storeAssistant, storeQuestion, type StoredQuestion } from './chat-store';
import type { ChatJournal, NumberedChatEvent } from './chat-journal';
import { documentContext, webContext } from './chat-context';
import { BaseService, ServiceContext } from '../db/service-context';
import type { LiveAccessService } from './live-access.service';
import type { ProvidersService } from './providers.service';
import type { SearchWing } from '../search';
import { observeChat } from './chat-metrics';

export type { ChatErrorMessage, ChatEvent, ChatTimings } from '../presenters/chat-event.presenter';
import { chatAccessLost, type ChatErrorMessage, type ChatEvent, type ChatTimings } from '../presenters/chat-event.presenter';

interface RunInput {
  actor: Actor;
  project: { id: string; instructions: string; model: string | null; temperature: number | null };
  conversationId: string | null;
  /** A regenerate's question, already stored in place of the exchange it replaces (prepareQuestion). */
  stored: StoredQuestion | null;
  message: string;
  mode: ChatMode;
  modelId: string | null;
  started: number;
}

/** Why the stream stopped early: the consumer left (client disconnect, unsubscribe) or the server is stopping. */
type StopReason = 'client' | 'shutdown';

export class ChatService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly deps: { providers: ProvidersService; search: SearchWing; live: LiveAccessService; journal: ChatJournal },
  ) {
    super(ctx);
  }

  /**
   * The chat pipeline (DESIGN §6) as one async sequence of events. Access (`use`), the mode and
   * the conversation are checked BEFORE the sequence is returned, so a transport can still answer
   * a plain 403/404/400. Aborting `signal`, or ending the iteration early (`return()`), aborts
   * the upstream request and stores what arrived as an incomplete answer; so does losing access
   * mid-answer (on any node), and the stream then ends with an error event naming why.
   */
  async ask(actor: Actor, projectId: string, input: AskInput, signal?: AbortSignal): Promise<AsyncIterable<NumberedChatEvent>> {
    const events = await this.deps.live.guard(actor, { projectId }, signal, (s) => this.start(actor, projectId, input, s), chatAccessLost);
    // numbered and recorded (issue 38), access loss included, so a dropped client can resume on any node
    return this.deps.journal.record(actor.id, projectId, events);
  }

  /**
   * GET /chat/messages/:messageId/stream: the caller's answer from the event after `after` (SSE `Last-Event-ID`;
   * 0: all), then live until it ends, on any node. Leaving stops only this reader, not the answer.
   */
  async resume(actor: Actor, messageId: string, after: number, signal?: AbortSignal): Promise<AsyncIterable<NumberedChatEvent>> {
    const { projectId } = await requireChatStream(this.em(), actor, messageId);
    return this.deps.live.guard(
      actor,
      { projectId },
      signal,
      // eslint-disable-next-line @typescript-eslint/require-await -- guard takes an async opener
      async (s) => this.deps.journal.replay(messageId, after, s),
      chatAccessLost,
    );
  }

  /** POST /chat/messages/:messageId/stop: the caller's answer stops where it is generated (any node), stored incomplete. */
  async stopAnswer(actor: Actor, messageId: string): Promise<{ messageId: string; stopping: true }> {
    await requireChatStream(this.em(), actor, messageId);
    await this.deps.journal.requestStop(messageId);
    return { messageId, stopping: true };
  }

  private async start(actor: Actor, projectId: string, input: AskInput, signal: AbortSignal): Promise<AsyncIterable<ChatEvent>> {
    const started = performance.now();
    const em = this.em();
    const { project } = await requireTier(em, actor, projectId, 'use');
    const mode = input.mode ?? 'docs';
    if (mode !== 'docs' && !this.config.searchApiKey) {
      // decided: refused before the stream (400), so clients can read /chat/config and never get a half-open stream
      throw ValidationError.field(
        'mode',
        `Mode "${mode}" needs web search, which is not configured on this server (SEARCH_API_KEY is unset)`,
      );
    }
    const { conversationId, stored } = await prepareQuestion(em, actor, project.id, { ...input, mode });
    const settings = project.settings ?? {};
    const events = this.stream(
      {
        actor,
        project: {
          id: project.id,
          instructions: project.instructions ?? '',
          model: typeof settings.model === 'string' ? settings.model : null,
          temperature: typeof settings.temperature === 'number' ? settings.temperature : null,
        },
        conversationId,
        stored,
        message: input.message,
        mode,
        modelId: input.modelId?.trim() || null,
        started,
      },
      signal,
    );
    return observeChat(this.metrics, mode, started, events);
  }

  /**
   * Wraps the pipeline so that leaving early aborts the upstream at once: an async generator's
   * own return() would wait for the pending upstream read to finish first.
   */
  private stream(input: RunInput, signal?: AbortSignal): AsyncIterable<ChatEvent> {
    const stop = new AbortController();
    const onClient = () => stop.abort('client' satisfies StopReason);
    const onShutdown = () => stop.abort('shutdown' satisfies StopReason);
    const detach = () => {
      signal?.removeEventListener('abort', onClient);
      this.ctx.shutdown.removeEventListener('abort', onShutdown);
    };
    if (signal?.aborted) onClient();
    else signal?.addEventListener('abort', onClient, { once: true });
    if (this.ctx.shutdown.aborted) onShutdown();
    else this.ctx.shutdown.addEventListener('abort', onShutdown, { once: true });
    const gen = this.run(input, stop.signal);
    const wrapped = (async function* () {
      try {
        yield* gen;
      } finally {
        detach();
      }
    })();
    return {
      [Symbol.asyncIterator]: () => ({
        next: () => wrapped.next(),
        return: async (value?: unknown) => {
          if (!stop.signal.aborted) stop.abort('client' satisfies StopReason);
          return wrapped.return(value as undefined);
        },
        throw: (e?: unknown) => wrapped.throw(e),
      }),
    };
  }

  private async *run(input: RunInput, stop: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
    const { actor, project, message, mode } = input;
    const timings: ChatTimings = { retrievalMs: 0, firstTokenMs: null, totalMs: 0 };
    const since = () => Math.round(performance.now() - input.started);
    const assistantId = newId();
    let answer = '';
    let citations: Citation[] = [];
    let totalTokens = 0;
    let model = '';
    let conversationId: string | null = null;
    let stored = false;
    const error = (message: ChatErrorMessage, detail: string): ChatEvent => ({ event: 'error', data: { type: 'error', message, detail } });
    // a client that left hears nothing more; a shutdown ends open streams with an error event
    // eslint-disable-next-line @typescript-eslint/require-await -- must be an async generator: it is yielded from with yield* in an async stream
    const stopped = async function* (): AsyncGenerator<ChatEvent, void, undefined> {
      if (stop.reason === 'shutdown')
        yield error('SERVER_SHUTTING_DOWN', 'The server is restarting; the answer so far was saved. Ask again in a moment.');
    };
    const storeAnswer = async (incomplete: boolean) => {
      if (stored || !conversationId) return;
      stored = true;
      await storeAssistant(this.freshEm(), conversationId, assistantId, {
        content: answer,
        citations,
        incomplete,
        model,
        totalTokens,
        mode,
      });
    };

    // retrieval depends on nothing stored, so it starts at once and runs beside the writes below
    const retrievalStarted = performance.now();
    const retrieval = (
      mode === 'docs'
        ? documentContext(this.deps.search, actor, project.id, message, timings)
        : webContext(this.config, message, mode, stop)
    ).finally(() => {
      const ms = performance.now() - retrievalStarted;
      timings.retrievalMs = Math.round(ms);
      this.metrics.retrievalDuration.observe({ mode }, ms / 1000);
    });
    retrieval.catch(() => undefined); // handled where it is awaited; never an unhandled rejection
    try {
      // 1. provider, conversation, user message (stored before anything streams)
      const [target, question] = await Promise.all([
        this.deps.providers.resolveForChat({ modelId: input.modelId, projectModel: project.model }),
        input.stored ?? storeQuestion(this.freshEm(), actor, project.id, { conversationId: input.conversationId, message, mode }),
      ]);
      const { id, history } = question;
      model = target.label;
      conversationId = id;
      yield { event: 'meta', data: { conversationId: id, messageId: assistantId, model } };
      if (stop.aborted) {
        await storeAnswer(true);
        yield* stopped();
        return;
      }

      // 2. retrieval
      let context: ContextItem[];
      try {
        context = await retrieval;
      } catch (e) {
        await storeAnswer(true);
        if (stop.aborted) {
          yield* stopped();
          return;
        }
        if (!(e instanceof UpstreamError)) throw e;
        this.metrics.chatUpstreamErrors.inc({ provider: 'web-search' });
        yield error('SEARCH_API_ERROR', e.message);
        return;
      }
      yield { event: 'sources', data: { chunks: context.map(presentSource) } };

      // 3. the model
      if (!target.ok) {
        await storeAnswer(true);
        yield error('LLM_API_ERROR', target.reason);
        return;
      }
      const messages = buildPrompt({ instructions: project.instructions, deep: mode === 'deep', context, history, question: message });
      let usage: number | null = null;
      try {
        for await (const part of streamChatCompletion(
          target.target,
          { messages, ...(project.temperature !== null ? { temperature: project.temperature } : {}) },
          // idle: nothing from the upstream for this long; total: a generous cap on one answer
          { signal: stop, idleTimeoutMs: this.config.upstreamTimeoutMs, totalTimeoutMs: this.config.upstreamTimeoutMs * 10 },
        )) {
          if (part.type === 'usage') {
            usage = part.totalTokens;
            continue;
          }
          timings.firstTokenMs ??= since();
          answer += part.text;
          yield { event: 'text', data: { delta: part.text } };
        }
      } catch (e) {
        citations = citationsFor(answer, context);
        await storeAnswer(true);
        if (e instanceof UpstreamAbortedError || stop.aborted) {
          yield* stopped();
          return;
        }
        if (!(e instanceof UpstreamError)) throw e;
        this.metrics.chatUpstreamErrors.inc({
          provider: this.metrics.provider(target.providerId === null ? null : target.label.split('/')[0]),
        });
        yield error('LLM_API_ERROR', e.message);
        return;
      }
      if (stop.aborted) {
        await storeAnswer(true);
        yield* stopped();
        return;
      }

      // 4. the answer with the citations it really used
      citations = citationsFor(answer, context);
      totalTokens = usage ?? messages.reduce((n, m) => n + estimateTokens(m.content), 0) + estimateTokens(answer);
      await storeAnswer(false);
      timings.totalMs = since();
      yield { event: 'done', data: { messageId: assistantId, totalTokens, timings } };
    } catch (e) {
      this.logger.error({ err: e, projectId: project.id, conversationId }, 'chat pipeline failed');
      try {
        await storeAnswer(true);
      } catch (storeErr) {
        this.logger.error({ err: storeErr }, 'could not store the incomplete answer');
      }
      yield error('INTERNAL_ERROR', 'The answer could not be completed because of a server error');
    } finally {
      // the consumer left mid-way (return()): keep what arrived
      if (!stored && conversationId) {
        await storeAnswer(true).catch((e) => this.logger.error({ err: e }, 'could not store the incomplete answer'));
      }
    }
  }

  /** GET /chat/config: which modes this server offers (web and deep need SEARCH_API_KEY). */
  modes(_actor: Actor): { docs: boolean; web: boolean; deep: boolean } {
    const web = !!this.config.searchApiKey;
    return { docs: true, web, deep: web };
  }
}
