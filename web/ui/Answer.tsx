import { memo, type ReactNode } from 'react';
import { splitCitations } from '../lib/citations';
import { citationTarget, type CitationTarget, type Turn } from '../lib/chat-turns';
import { MarkdownAnswer } from './MarkdownAnswer';

/** One turn of the conversation; `[n]` markers become links that open the cited passage. */
export const TurnView = memo(function TurnView({
  turn,
  onCite,
  actions,
}: {
  turn: Turn;
  onCite: (t: CitationTarget) => void;
  /** Copy, regenerate and feedback under a finished answer (AnswerActions.tsx). */
  actions?: ReactNode;
}) {
  if (turn.role === 'user')
    return (
      <li className="turn user">
        <span className="sr-only">You asked: </span>
        <p>{turn.content}</p>
      </li>
    );
  return (
    <li className={`turn assistant ${turn.state}`} aria-busy={turn.state === 'streaming'}>
      <span className="sr-only">Answer: </span>
      {turn.content === '' && turn.state === 'streaming' && (
        <p className="muted thinking" role="status">
          Looking through the documents…
        </p>
      )}
      {/* the answer as Markdown, citation markers included: MarkdownAnswer.tsx */}
      <MarkdownAnswer turn={turn} onCite={onCite} />
      {turn.noPassage && (
        <p className="muted" role="note">
          No passage in this project&rsquo;s documents matched.
        </p>
      )}
      {turn.state === 'done' && turn.content === '' && <p className="muted">The model returned an empty answer.</p>}
      {turn.state === 'stopped' && <p className="muted">You stopped this answer.</p>}
      {turn.state === 'error' && (
        <p className="error" role="alert">
          {turn.error}
        </p>
      )}
      {turn.state !== 'streaming' && <Sources turn={turn} onCite={onCite} />}
      {turn.state !== 'streaming' && actions}
    </li>
  );
});

/** The passages the answer cites, as a short list under it. */
function Sources({ turn, onCite }: { turn: Turn; onCite: (t: CitationTarget) => void }) {
  const cited = [...new Set(splitCitations(turn.content).flatMap((p) => (p.kind === 'cite' ? [p.n] : [])))]
    .sort((a, b) => a - b)
    .map((n) => citationTarget(turn, n))
    .filter((t): t is CitationTarget => t !== null);
  if (!cited.length) return null;
  return (
    <ol className="sources" aria-label="Sources">
      {cited.map((t) => (
        <li key={t.n} value={t.n}>
          <a
            href={`#source-${t.n}`}
            onClick={(e) => {
              e.preventDefault();
              onCite(t);
            }}
          >
            {t.documentName}
            {t.url ? '' : `, page ${t.pageNumber}`}
          </a>
        </li>
      ))}
    </ol>
  );
}
