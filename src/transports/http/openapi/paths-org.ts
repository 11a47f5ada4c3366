// REST operations: Departments and groups.
import { AddDepartmentMembersInput, CreateDepartmentInput, UpdateDepartmentInput } from '../../../services/departments.inputs';
import { CreateGroupInput, GroupMembersInput, ListGroupsQuery, UpdateGroupInput } from '../../../services/groups.inputs';
import { crudOperations, deleted, list, ref, tagged, wrap, type Operation } from './operation';

const departments = tagged('departments');
const groups = tagged('groups');

export const ORGANISATION: Operation[] = [
  departments.get('/departments', 'List departments', { 200: list('departments', 'Department') }),
  ...crudOperations(departments, {
    path: '/departments',
    answer: wrap('department', ref('Department')),
    create: CreateDepartmentInput,
    update: UpdateDepartmentInput,
    writeErrors: [409],
    summary: {
      create: 'Create a department',
      get: 'One department',
      update: 'Update a department',
      delete: 'Delete a department (409 while users, groups or grants refer to it)',
    },
  }),
  departments.get('/departments/:id/members', "A department's members", { 200: list('members', 'UserSummary') }),
  departments.post(
    '/departments/:id/members',
    'Add users to a department',
    { 200: list('members', 'UserSummary') },
    { body: AddDepartmentMembersInput, errors: [409] },
  ),
  departments.delete('/departments/:id/members/:userId', 'Remove a user from a department', { 200: deleted() }),
  groups.get('/groups', 'List groups', { 200: list('groups', 'Group') }, { query: ListGroupsQuery }),
  ...crudOperations(groups, {
    path: '/groups',
    answer: wrap('group', ref('Group')),
    create: CreateGroupInput,
    update: UpdateGroupInput,
    writeErrors: [409],
    summary: {
      create: 'Create a group',
      get: 'One group with its members',
      update: 'Update a group',
      delete: 'Delete a group (409 while grants refer to it)',
    },
  }),
  groups.post(
    '/groups/:id/members',
    'Add members to a group',
    { 200: wrap('group', ref('Group')) },
    { body: GroupMembersInput, errors: [409] },
  ),
  groups.delete('/groups/:id/members/:userId', 'Remove a member from a group', { 200: deleted() }),
];
