import { projectPath } from '../lib/router';
import { useSession } from '../session';
import { formatWhen } from '../lib/citations';
import { CreateProject } from './CreateProject';
import { ErrorText, Link, Loading, sourceLabel, TIER_LABEL, useLoad, useTitle } from './common';
import { ProviderForm } from './ProviderForm';

/** The first screen: whether chat has a model, the caller's projects, and recent conversations. */
export function Home() {
  const { api, can } = useSession();
  const projects = useLoad((s) => api.get('/projects', s), []);
  const recent = useLoad((s) => api.get('/chat/recent?limit=8', s), []);
  // the server's own provider resolution: a model from a provider or from LLM_*, or none at all
  const chatModel = useLoad((s) => api.get('/providers/chat-model', s), []);
  useTitle('Projects');
  const noModel = chatModel.data && chatModel.data.model === null;
  const model = chatModel.data?.model;

  return (
    <div className="home">
      {noModel && (
        <section className="card first-run" aria-labelledby="no-model">
          <h2 id="no-model">No language model is configured</h2>
          {can.manageProviders ? (
            <>
              <p>
                Answers need a language model. Add an OpenAI-compatible provider (OpenAI, a local Ollama or vLLM, …): give its address, a
                key if it needs one, and the model names it serves. &ldquo;Test&rdquo; asks it for a short reply before you save.
              </p>
              <ProviderForm onSaved={chatModel.reload} firstRun />
            </>
          ) : (
            <p>
              Answers need a language model, and chat has none: no provider is enabled and the server was not started with one. Questions
              will fail until an engineer or the administrator adds one.
            </p>
          )}
        </section>
      )}

      {model && (
        <p className="muted chat-model" role="status">
          Chat answers with <strong>{model.label}</strong>
          {model.source === 'environment' ? ' (set by the server’s LLM_* settings)' : ' (a configured provider)'}.
        </p>
      )}

      <section aria-labelledby="projects-title">
        <div className="section-head">
          <h1 id="projects-title">Projects</h1>
        </div>
        {projects.loading && !projects.data && <Loading what="projects" />}
        <ErrorText>{projects.error}</ErrorText>
        {projects.data && projects.data.projects.length === 0 && (
          <p className="muted">
            {can.createProjects
              ? 'No projects yet: create the first one below.'
              : 'You have no projects yet. Someone with access can share one with you.'}
          </p>
        )}
        <ul className="project-list">
          {projects.data?.projects.map((p) => (
            <li key={p.id} className="card project">
              <span className="swatch" aria-hidden="true" style={{ background: p.color }} />
              <div>
                <Link to={projectPath(p.id)} className="project-name">
                  {p.name}
                </Link>
                {p.description && <p className="muted">{p.description}</p>}
                <p className="meta">
                  <span className={`badge tier-${p.accessTier}`}>{TIER_LABEL[p.accessTier]}</span>
                  <span className="muted">via {sourceLabel(p.accessSource)}</span>
                  <span className="muted">
                    {p._count.documents} document{p._count.documents === 1 ? '' : 's'} · {p._count.conversations} conversation
                    {p._count.conversations === 1 ? '' : 's'}
                  </span>
                </p>
              </div>
            </li>
          ))}
        </ul>
        {can.createProjects && <CreateProject />}
      </section>

      <section aria-labelledby="recent-title">
        <h2 id="recent-title">Recent conversations</h2>
        <ErrorText>{recent.error}</ErrorText>
        {recent.data && recent.data.conversations.length === 0 && <p className="muted">Your conversations will appear here.</p>}
        <ul className="plain-list">
          {recent.data?.conversations.map((c) => (
            <li key={c.id}>
              <Link to={projectPath(c.projectId, 'ask', c.id)}>{c.title || 'Untitled conversation'}</Link>{' '}
              <span className="muted">
                in {c.project.name} · {formatWhen(c.updatedAt)}
              </span>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
