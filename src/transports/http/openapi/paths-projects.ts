// REST operations: Projects, their grants and the audit log.
import { AuditLogQuery } from '../../../services/audit.inputs';
import { UpsertGrantInput } from '../../../services/grants.inputs';
import { CreateProjectInput, UpdateProjectInput } from '../../../services/projects.inputs';
import { ref, wrap, list, deleted, type Operation } from './operation';

export const PROJECTS_GRANTS_AUDIT: Operation[] = [
  {
    method: 'get',
    path: '/projects',
    tag: 'projects',
    summary: 'The projects the caller can access, with their tier and its source',
    ok: { 200: list('projects', 'ProjectListItem') },
  },
  {
    method: 'post',
    path: '/projects',
    tag: 'projects',
    summary: 'Create a project (admin, superadmin)',
    body: CreateProjectInput,
    ok: { 201: wrap('project', ref('ProjectDetail')) },
  },
  {
    method: 'get',
    path: '/projects/:id',
    tag: 'projects',
    summary: 'One project with members and counts',
    ok: { 200: wrap('project', ref('ProjectDetail')) },
  },
  {
    method: 'patch',
    path: '/projects/:id',
    tag: 'projects',
    summary: 'Update a project (`edit`; `ownerId` needs `full`)',
    body: UpdateProjectInput,
    ok: { 200: wrap('project', ref('ProjectDetail')) },
  },
  {
    method: 'delete',
    path: '/projects/:id',
    tag: 'projects',
    summary: 'Delete a project and everything in it (`full`)',
    ok: { 200: deleted() },
  },
  {
    method: 'delete',
    path: '/projects/:id/members/:userId',
    tag: 'projects',
    summary: 'Remove a user from the visible member list (`edit`; grants stay)',
    ok: { 200: deleted() },
  },
  {
    method: 'post',
    path: '/projects/:projectId/grants',
    tag: 'grants',
    summary: 'Create or update the grant of a target (`full`)',
    body: UpsertGrantInput,
    ok: {
      201: {
        type: 'object',
        properties: { grant: ref('Grant'), action: { const: 'created' } },
        required: ['grant', 'action'],
        additionalProperties: false,
      },
      200: {
        type: 'object',
        properties: { grant: ref('Grant'), action: { const: 'updated' } },
        required: ['grant', 'action'],
        additionalProperties: false,
      },
    },
  },
  {
    method: 'get',
    path: '/projects/:projectId/grants',
    tag: 'grants',
    summary: "A project's grants (`use`)",
    ok: { 200: list('grants', 'Grant') },
  },
  {
    method: 'delete',
    path: '/projects/:projectId/grants/:grantId',
    tag: 'grants',
    summary: 'Delete a grant (`full`)',
    ok: { 200: deleted() },
  },
  {
    method: 'get',
    path: '/projects/:projectId/access/:userId',
    tag: 'grants',
    summary: "A user's effective access to the project as the access resolver decides it: tier and source (full tier)",
    ok: { 200: wrap('access', ref('EffectiveAccess')) },
  },
  {
    method: 'get',
    path: '/grants/by-user/:userId',
    tag: 'grants',
    summary: 'Every grant reaching a user, directly or through a group or department',
    ok: { 200: ref('GrantsByUser') },
  },
  {
    method: 'get',
    path: '/audit-log',
    tag: 'audit',
    summary: 'Grant changes, newest first (admin, superadmin)',
    query: AuditLogQuery,
    ok: {
      200: {
        type: 'object',
        properties: { entries: { type: 'array', items: ref('AuditEntry') }, total: { type: 'integer' } },
        required: ['entries', 'total'],
        additionalProperties: false,
      },
    },
  },
];
