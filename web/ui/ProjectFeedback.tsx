import { formatWhen } from '../lib/citations';
import { projectPath } from '../lib/router';
import { useSession } from '../session';
import { Link, useLoad } from './common';
import { ListStatus, Pager, useFilteredPages } from './controls';

const PAGE = 50;

/** Feedback on this project's answers, for admins' quality work (GET /projects/:projectId/feedback). */
export function ProjectFeedback({ projectId }: { projectId: string }) {
  const { api } = useSession();
  const { filters, bind, offset, setOffset } = useFilteredPages({ rating: '' });
  const qs = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (filters.rating) qs.set('rating', filters.rating);
  const list = useLoad((s) => api.get(`/projects/${encodeURIComponent(projectId)}/feedback?${qs}`, s), [projectId, qs.toString()]);
  const total = list.data?.total ?? 0;
  return (
    <section aria-labelledby="feedback-title">
      <h2 id="feedback-title">Feedback on answers</h2>
      <label className="inline">
        Rating
        <select {...bind('rating')}>
          <option value="">Any</option>
          <option value="up">Good answers</option>
          <option value="down">Bad answers</option>
        </select>
      </label>
      <ListStatus loaded={list} what="feedback" count={list.data?.feedback.length} none="No feedback yet." />
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
      <Pager label="Pages of feedback" offset={offset} page={PAGE} total={total} onOffset={setOffset} />
    </section>
  );
}
