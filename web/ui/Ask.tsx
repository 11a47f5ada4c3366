import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../lib/api';
import { askStream, type AskRequest } from '../lib/chat-stream';
import { applyEvent, turnsFrom, type CitationTarget, type Turn } from '../lib/chat-turns';
import { navigate, projectPath } from '../lib/router';
import { useSession } from '../session';
import { TurnView } from './Answer';
import { AnswerActions } from './AnswerActions';
import { Conversations } from './Conversations';
import { Composer } from './Composer';
import { ErrorText, useLoad } from './common';
import { CitationDialog } from './CitationDialog';
import { SourceDialog } from './SourceDialog';

let turnKey = 0;

/** Ask: the project's conversations, the open one, and the question box; answers stream in. */
export function Ask({ projectId, conversationId }: { projectId: string; conversationId: string | null }) {
  const { api } = useSession();
  const [version, setVersion] = useState(0);
  /** The caller's earlier ratings of this conversation's answers, by message id. */
  const [rated, setRated] = useState<Map<string, 'up' | 'down'>>(new Map());
  const modes = useLoad((s) => api.get('/chat/config', s), []);
  const models = useLoad((s) => api.get('/providers/models', s), []);
  const [turns, setTurns] = useState<Turn[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [streaming, setStreaming] = useState(false);
  const [cite, setCite] = useState<CitationTarget | null>(null);
  const abort = useRef<AbortController | null>(null);
  /** The answer being streamed (from its `meta`): Stop asks the server to stop generating it. */
  const streamingId = useRef<string | null>(null);
  /** Stop was pressed: the server is storing the answer so far, and its stream ends once it has. */
  const stopping = useRef(false);
  /** The conversation this screen itself started (its URL changes, its turns stay). */
  const own = useRef<string | null>(null);
  const pending = useRef<((t: Turn) => Turn)[]>([]);
  const frame = useRef<number | null>(null);
  const endRef = useRef<HTMLDivElement>(null);
  /** The last question as asked (mode and model too), for Regenerate. */
  const lastAsk = useRef<AskRequest | null>(null);

  useEffect(() => {
    if (conversationId && conversationId === own.current) return;
    abort.current?.abort();
    own.current = null;
    setLoadError(null);
    if (!conversationId) return setTurns([]);
    const ctl = new AbortController();
    const path = `/chat/conversations/${encodeURIComponent(conversationId)}` as const;
    api.get(`${path}/feedback`, ctl.signal).then(
      (r) => setRated(new Map(r.feedback.map((x) => [x.messageId, x.rating]))),
      () => setRated(new Map()),
    );
    api.get(path, ctl.signal).then(
      (r) => setTurns(turnsFrom(r.conversation.messages)),
      (e: unknown) => !ctl.signal.aborted && setLoadError(e instanceof Error ? e.message : 'The conversation could not be loaded'),
    );
    return () => ctl.abort();
  }, [api, conversationId]);

  useEffect(() => () => abort.current?.abort(), []);

  /** Stream changes to the last turn are applied once per frame, so long answers stay responsive. */
  const flush = useCallback(() => {
    frame.current = null;
    const fns = pending.current;
    pending.current = [];
    if (fns.length) setTurns((ts) => [...ts.slice(0, -1), fns.reduce((t, f) => f(t), ts[ts.length - 1])]);
  }, []);
  const change = useCallback(
    (fn: (t: Turn) => Turn, now = false) => {
      pending.current.push(fn);
      if (now) {
        if (frame.current !== null) cancelAnimationFrame(frame.current);
        flush();
      } else frame.current ??= requestAnimationFrame(flush);
    },
    [flush],
  );

  const ask = async (req: AskRequest, replaceLast = false) => {
    const ctl = new AbortController();
    abort.current = ctl;
    setStreaming(true);
    const body = { ...req, conversationId: own.current ?? conversationId ?? undefined };
    lastAsk.current = { ...req, replaces: undefined };
    setTurns((ts) => [
      ...(replaceLast ? ts.slice(0, -2) : ts),
      { key: `q${++turnKey}`, role: 'user', content: req.message, sources: [], citations: [], state: 'done' },
      { key: `a${turnKey}`, role: 'assistant', content: '', sources: [], citations: [], state: 'streaming' },
    ]);
    let first = true;
    let ended = false;
    try {
      for await (const e of askStream(api, projectId, body, ctl.signal)) {
        if (e.event === 'meta') streamingId.current = e.data.messageId;
        if (e.event === 'meta' && !body.conversationId) {
          own.current = e.data.conversationId;
          navigate(projectPath(projectId, 'ask', e.data.conversationId), true);
        }
        if (e.event === 'done' || e.event === 'error') ended = true;
        // the first words go on screen at once; the rest once per frame
        change((t) => applyEvent(t, e), first && e.event === 'text');
        if (e.event === 'text' && first) {
          // for the browser test's first-text latency: when the first words arrived from the stream
          performance.mark('docqa:first-text-event');
          first = false;
        }
      }
      if (!ended && stopping.current) change((t) => ({ ...t, state: 'stopped' }), true);
      else if (!ended)
        change((t) => ({ ...t, state: 'error', error: 'The answer stopped before it was finished: the connection ended.' }), true);
    } catch (err) {
      if (ctl.signal.aborted) change((t) => ({ ...t, state: 'stopped' }), true);
      else if (err instanceof ApiError)
        change((t) => ({ ...t, state: 'error', error: `The question could not be asked: ${err.message}` }), true);
      else change((t) => ({ ...t, state: 'error', error: 'The connection to the server was lost before the answer finished.' }), true);
    } finally {
      change((t) => t, true);
      setStreaming(false);
      abort.current = null;
      streamingId.current = null;
      stopping.current = false;
      setVersion((v) => v + 1);
    }
  };

  /**
   * Asks the last question again in place of the last exchange: the server replaces that answer
   * and its question (`replaces`), so the conversation keeps one exchange with the new answer.
   */
  const regenerate = () => {
    const answer = turns[turns.length - 1];
    const last = [...turns].reverse().find((t) => t.role === 'user');
    if (!last || streaming) return;
    // an answer the server never stored (no id from its stream) has nothing to replace
    const replaces = answer?.role === 'assistant' ? answer.messageId : undefined;
    void ask({ ...(lastAsk.current ?? {}), message: last.content, ...(replaces ? { replaces } : {}) }, true);
  };

  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'nearest' });
  }, [turns.length]);

  return (
    <div className="ask">
      <Conversations
        projectId={projectId}
        conversationId={conversationId}
        version={version}
        onDeleted={(id) => {
          if (id === own.current) own.current = null;
        }}
      />
      <section className="thread" aria-label="Conversation">
        <ErrorText>{loadError}</ErrorText>
        {turns.length === 0 && !loadError && (
          <p className="muted empty-thread">
            Ask a question about this project&rsquo;s documents. Answers cite their sources: open a [1] to read the passage.
          </p>
        )}
        <ol className="turns" aria-live="polite">
          {turns.map((t, i) => (
            <TurnView
              key={t.key}
              turn={t}
              onCite={setCite}
              actions={
                t.role === 'assistant' && (
                  <AnswerActions
                    // remounted when the earlier rating arrives, so it shows as pressed
                    key={`${t.messageId}:${t.messageId ? (rated.get(t.messageId) ?? '') : ''}`}
                    turn={t}
                    rated={t.messageId ? rated.get(t.messageId) : undefined}
                    onRegenerate={i === turns.length - 1 && !streaming ? () => regenerate() : undefined}
                  />
                )
              }
            />
          ))}
        </ol>
        <div ref={endRef} />
        <Composer
          modes={modes.data}
          models={models.data?.models ?? []}
          streaming={streaming}
          onAsk={(r) => void ask(r)}
          onStop={() => {
            // the answer is generated on the server whether anyone listens or not: stop it there, and read
            // on until its stream ends (the partial answer stored, so Regenerate finds it); leave at
            // once when there is no id yet, the request fails, or the end does not come within 5 s
            const id = streamingId.current;
            const ctl = abort.current;
            if (!id || !ctl) return ctl?.abort();
            stopping.current = true;
            api.send('POST', `/chat/messages/${id}/stop`).catch(() => ctl.abort());
            setTimeout(() => ctl.abort(), 5000);
          }}
        />
      </section>
      {cite &&
        (cite.url || !cite.documentId ? (
          <SourceDialog key={cite.chunkId} target={cite} onClose={() => setCite(null)} />
        ) : (
          <CitationDialog key={cite.chunkId} projectId={projectId} target={cite} onClose={() => setCite(null)} />
        ))}
    </div>
  );
}
