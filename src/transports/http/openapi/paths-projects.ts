// REST operations: Projects, their grants and the audit log.
import { AuditLogQuery } from '../../../services/audit.inputs';
import { UpsertGrantInput } from '../../../services/grants.inputs';
import { CreateProjectInput, UpdateProjectInput } from '../../../services/projects.inputs';
import { crudOperations, deleted, list, object, page, ref, tagged, wrap, type Operation } from './operation';

const projects = tagged('projects');
const grants = tagged('grants');
const audit = tagged('audit');

export const PROJECTS_GRANTS_AUDIT: Operation[] = [
  projects.get('/projects', 'The projects the caller can access, with their tier and its source', {
    200: list('projects', 'ProjectListItem'),
  }),
  ...crudOperations(projects, {
    path: '/projects',
    answer: wrap('project', ref('ProjectDetail')),
    create: CreateProjectInput,
    update: UpdateProjectInput,
    summary: {
      create: 'Create a project (admin, superadmin)',
      get: 'One project with members and counts',
      update: 'Update a project (`edit`; `ownerId` needs `full`)',
      delete: 'Delete a project and everything in it (`full`)',
    },
  }),
  projects.delete('/projects/:id/members/:userId', 'Remove a user from the visible member list (`edit`; grants stay)', { 200: deleted() }),
  grants.post(
    '/projects/:projectId/grants',
    'Create or update the grant of a target (`full`)',
    {
      201: object({ grant: ref('Grant'), action: { const: 'created' } }),
      200: object({ grant: ref('Grant'), action: { const: 'updated' } }),
    },
    { body: UpsertGrantInput },
  ),
  grants.get('/projects/:projectId/grants', "A project's grants (`use`)", { 200: list('grants', 'Grant') }),
  grants.delete('/projects/:projectId/grants/:grantId', 'Delete a grant (`full`)', { 200: deleted() }),
  grants.get(
    '/projects/:projectId/access/:userId',
    "A user's effective access to the project as the access resolver decides it: tier and source (full tier)",
    { 200: wrap('access', ref('EffectiveAccess')) },
  ),
  grants.get('/grants/by-user/:userId', 'Every grant reaching a user, directly or through a group or department', {
    200: ref('GrantsByUser'),
  }),
  audit.get(
    '/audit-log',
    'Grant changes, newest first (admin, superadmin)',
    { 200: page('entries', 'AuditEntry') },
    { query: AuditLogQuery },
  ),
];
