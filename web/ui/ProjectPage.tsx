import { projectPath, type Route } from '../lib/router';
import { useSession } from '../session';
import { Ask } from './Ask';
import { Link, LoadFailed, Loading, sourceLabel, TIER_LABEL, useLoad, useTitle } from './common';
import { Documents } from './Documents';
import { EffectiveAccess } from './EffectiveAccess';
import { Grants } from './Grants';
import { ProjectFeedback } from './ProjectFeedback';
import { ProjectSettings } from './ProjectSettings';

type ProjectRoute = Extract<Route, { name: 'project' }>;

/** One project: its tabs (Ask, Documents, and Settings / Access where the tier allows). */
export function ProjectPage({ route }: { route: ProjectRoute }) {
  const { api, can } = useSession();
  const { projectId, tab } = route;
  // the caller's tier and its source are in the list only (the spec computes them per caller there)
  const summary = useLoad(async (s) => (await api.get('/projects', s)).projects.find((p) => p.id === projectId) ?? null, [projectId]);
  const detail = useLoad((s) => api.get(`/projects/${encodeURIComponent(projectId)}`, s), [projectId]);
  const project = detail.data?.project;
  const tier = summary.data?.accessTier ?? 'use';
  useTitle(project?.name);

  if (detail.error) return <LoadFailed title="Project" error={detail.error} backTo="/" back="Back to projects" />;
  if (!project || summary.loading) return <Loading what="the project" />;

  const tabs: Array<{ id: typeof tab; label: string; show: boolean }> = [
    { id: 'ask', label: 'Ask', show: true },
    { id: 'documents', label: `Documents (${project._count.documents})`, show: true },
    { id: 'settings', label: 'Settings', show: tier === 'edit' || tier === 'full' },
    { id: 'access', label: 'Access', show: tier === 'full' },
    { id: 'feedback', label: 'Feedback', show: can.listFeedback },
  ];
  const visible = tabs.find((t) => t.id === tab)?.show ?? false;

  return (
    <div className="project-page">
      <div className="project-head">
        <h1>
          <span className="swatch" aria-hidden="true" style={{ background: project.color }} />
          {project.name}
        </h1>
        {summary.data && (
          <p className="meta">
            <span className={`badge tier-${tier}`}>{TIER_LABEL[tier]}</span>
            <span className="muted">via {sourceLabel(summary.data.accessSource)}</span>
          </p>
        )}
      </div>
      <nav className="tabs" aria-label="Project">
        {tabs
          .filter((t) => t.show)
          .map((t) => (
            <Link key={t.id} to={projectPath(projectId, t.id)} current={t.id === tab}>
              {t.label}
            </Link>
          ))}
      </nav>
      {!visible && <p>Your access to this project does not include this page.</p>}
      {visible && tab === 'ask' && <Ask projectId={projectId} conversationId={route.conversationId} />}
      {visible && tab === 'documents' && <Documents projectId={projectId} tier={tier} onChanged={detail.reload} />}
      {visible && tab === 'settings' && <ProjectSettings project={project} onSaved={detail.reload} />}
      {visible && tab === 'feedback' && <ProjectFeedback projectId={projectId} />}
      {visible && tab === 'access' && (
        <>
          <Grants projectId={projectId} />
          <EffectiveAccess projectId={projectId} />
        </>
      )}
    </div>
  );
}
