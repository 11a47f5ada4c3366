import { useMemo, type MouseEvent } from 'react';
import { citationTarget, type CitationTarget, type Turn } from '../lib/chat-turns';
import { renderMarkdown } from '../lib/markdown';

/** The accessible name of a citation link (the browser tests and screen readers find sources by it). */
export const citationLabel = (t: CitationTarget) => `Source ${t.n}: ${t.documentName}${t.url ? '' : `, page ${t.pageNumber}`}`;

/**
 * An answer's text rendered as Markdown (web/lib/markdown.ts: the model's HTML is never markup).
 * Citation links are handled by one click listener on the block, so they open the cited passage.
 */
export function MarkdownAnswer({ turn, onCite }: { turn: Turn; onCite: (t: CitationTarget) => void }) {
  const html = useMemo(
    () =>
      renderMarkdown(turn.content, (n) => {
        const t = citationTarget(turn, n);
        return t ? citationLabel(t) : null;
      }),
    [turn],
  );
  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    const a = (e.target as HTMLElement).closest('a.cite');
    if (!a) return;
    e.preventDefault();
    const target = citationTarget(turn, Number(a.getAttribute('data-cite')));
    if (target) onCite(target);
  };
  // the HTML comes from markdown-it with html disabled: everything of the model's is escaped text
  return <div className="answer-text markdown" onClick={onClick} dangerouslySetInnerHTML={{ __html: html }} />;
}
