import { useState } from 'react';
import { formatWhen } from '../lib/citations';
import { projectPath } from '../lib/router';
import type { FeedbackDto } from '../lib/types';
import { useSession } from '../session';
import { ErrorText, Link, Loading, useLoad } from './common';

const PAGE = 50;

/** Feedback on this project's answers, for admins' quality work (GET /projects/:projectId/feedback). */
export function ProjectFeedback({ projectId }: { projectId: string }) {
  const { api } = useSession();
  const [rating, setRating] = useState('');
  const [offset, setOffset] = useState(0);
  const qs = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (rating) qs.set('rating', rating);
  const list = useLoad(
    (s) => api.get<{ feedback: FeedbackDto[]; total: number }>(`/projects/${encodeURIComponent(projectId)}/feedback?${qs}`, s),
    [projectId, qs.toString()],
  );
  const total = list.data?.total ?? 0;
  return (
    <section aria-labelledby="feedback-title">
      <h2 id="feedback-title">Feedback on answers</h2>
      <label className="inline">
        Rating
        <select
          value={rating}
          onChange={(e) => {
            setRating(e.target.value);
            setOffset(0);
          }}
        >
          <option value="">Any</option>
          <option value="up">Good answers</option>
          <option value="down">Bad answers</option>
        </select>
      </label>
      {list.loading && !list.data && <Loading what="feedback" />}
      <ErrorText>{list.error}</ErrorText>
      {list.data?.feedback.length === 0 && <p className="muted">No feedback yet.</p>}
      <ul className="plain-list">
        {list.data?.feedback.map((f) => (
          <li key={f.id} className="card">
            <p>
              <strong>{f.rating === 'up' ? 'Good answer' : 'Bad answer'}</strong> from {f.user?.name ?? 'a deleted user'} ·{' '}
              <span className="muted">{formatWhen(f.createdAt)}</span>
            </p>
            {f.comment && <p>“{f.comment}”</p>}
            <p className="muted small">{f.answer}</p>
            <Link to={projectPath(projectId, 'ask', f.conversationId)}>Open the conversation</Link>
          </li>
        ))}
      </ul>
      <nav className="row pager" aria-label="Pages of feedback">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Previous page
        </button>
        <span className="muted" role="status">
          {total ? `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}` : ''}
        </span>
        <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
          Next page
        </button>
      </nav>
    </section>
  );
}
