import { useState, type FormEvent, type KeyboardEvent } from 'react';
import type { AskRequest } from '../lib/chat-stream';
import type { ChatModes, ModelChoice } from '../lib/types';
import { Choices } from './controls';

type Mode = 'docs' | 'web' | 'deep';
const MODES: Array<{ id: Mode; label: string }> = [
  { id: 'docs', label: 'Documents' },
  { id: 'web', label: 'Web' },
  { id: 'deep', label: 'Deep research' },
];

/** The question box: mode (where the server has web search), model, Ask / Stop. */
export function Composer({
  modes,
  models,
  streaming,
  onAsk,
  onStop,
}: {
  modes: ChatModes | undefined;
  models: ModelChoice[];
  streaming: boolean;
  onAsk: (r: AskRequest) => void;
  onStop: () => void;
}) {
  const [message, setMessage] = useState('');
  const [mode, setMode] = useState<Mode>('docs');
  const [modelId, setModelId] = useState('');
  const webSearch = !!modes && (modes.web || modes.deep);

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (streaming || !message.trim()) return;
    onAsk({ message: message.trim(), mode: webSearch ? mode : undefined, modelId: modelId || undefined });
    setMessage('');
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <form className="composer card" onSubmit={submit}>
      <label htmlFor="question">Your question</label>
      <textarea
        id="question"
        rows={3}
        value={message}
        onChange={(e) => setMessage(e.target.value)}
        onKeyDown={onKey}
        placeholder="What does the handbook say about…"
        aria-describedby="question-help"
      />
      <p id="question-help" className="muted small">
        Enter sends; Shift+Enter starts a new line.
      </p>
      <div className="row composer-row">
        {webSearch && (
          <fieldset className="modes">
            <legend>Search in</legend>
            {MODES.filter((m) => modes?.[m.id]).map((m) => (
              <label key={m.id} className="check">
                <input type="radio" name="mode" value={m.id} checked={mode === m.id} onChange={() => setMode(m.id)} />
                {m.label}
              </label>
            ))}
          </fieldset>
        )}
        {models.length > 1 && (
          <Choices
            label="Model"
            value={modelId}
            onChange={(e) => setModelId(e.target.value)}
            empty="Project default"
            choices={models.map((m) => [m.id, `${m.model} (${m.provider})`] as const)}
          />
        )}
        <span className="spacer" />
        {streaming ? (
          <button type="button" className="danger" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" className="primary" disabled={!message.trim()}>
            Ask
          </button>
        )}
      </div>
    </form>
  );
}
