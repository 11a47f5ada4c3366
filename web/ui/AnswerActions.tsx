import { useState, type FormEvent } from 'react';
import type { Turn } from '../lib/chat-turns';
import { useSession } from '../session';
import { ErrorText, messageOf } from './common';

type Rating = 'up' | 'down';

/** Under a finished answer: copy it, regenerate it (the last one only), and rate it with an optional comment. */
export function AnswerActions({ turn, rated, onRegenerate }: { turn: Turn; rated?: Rating; onRegenerate?: () => void }) {
  const { api } = useSession();
  const [copied, setCopied] = useState(false);
  const [rating, setRating] = useState<Rating | null>(rated ?? null);
  const [comment, setComment] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(turn.content);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch (e) {
      setError(`The answer could not be copied: ${messageOf(e)}`);
    }
  };
  const send = async (r: Rating, text?: string) => {
    if (!turn.messageId) return;
    setError(null);
    try {
      await api.send('POST', `/chat/messages/${encodeURIComponent(turn.messageId)}/feedback`, {
        rating: r,
        ...(text?.trim() ? { comment: text.trim() } : {}),
      });
      setRating(r);
      setSent(text?.trim() ? 'Thank you: your comment was sent.' : 'Thank you for your feedback.');
    } catch (e) {
      setError(`Your feedback could not be sent: ${messageOf(e)}`);
    }
  };
  const submitComment = (e: FormEvent) => {
    e.preventDefault();
    if (rating) void send(rating, comment);
  };

  return (
    <div className="answer-actions">
      <div className="row wrap" role="group" aria-label="Answer actions">
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy answer'}
        </button>
        {onRegenerate && (
          <button type="button" onClick={onRegenerate}>
            Regenerate
          </button>
        )}
        {turn.messageId && (
          <>
            <button type="button" aria-pressed={rating === 'up'} onClick={() => void send('up')}>
              <span aria-hidden="true">👍</span> Good answer
            </button>
            <button type="button" aria-pressed={rating === 'down'} onClick={() => void send('down')}>
              <span aria-hidden="true">👎</span> Bad answer
            </button>
          </>
        )}
      </div>
      <p className="muted small" role="status">
        {sent}
      </p>
      {rating && (
        <form className="row wrap feedback-comment" onSubmit={submitComment}>
          <label className="inline grow">
            Comment (optional)
            <input value={comment} onChange={(e) => setComment(e.target.value)} maxLength={2000} />
          </label>
          <button type="submit" disabled={!comment.trim()}>
            Send comment
          </button>
        </form>
      )}
      <ErrorText>{error}</ErrorText>
    </div>
  );
}
