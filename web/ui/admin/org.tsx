/** Shapes and words shared by the organisation's screens (users, departments, groups, audit log). */
import { useState, type ReactNode } from 'react';
import { ApiError } from '../../lib/api';
import { useTitle } from '../common';
import { Choices, choicesOf, namedChoices } from '../controls';
import type { DepartmentDto, GroupDto, OrgPosition, PlatformRole, UserDto, UserListEntryDto, UserSummaryDto } from '../../lib/types';

export type { OrgPosition, PlatformRole } from '../../lib/types';
/** One user (`GET /users/:id`, `POST /users`). */
export type Person = UserDto;
/** A user as `GET /users` lists them, with their department. */
export type ListedPerson = UserListEntryDto;
/** A member of a department or a group. */
export type Member = UserSummaryDto;
export type Department = DepartmentDto;
export type Group = GroupDto;

export const ROLE_LABEL: Record<PlatformRole, string> = { none: 'None', admin: 'Admin', engineer: 'Engineer', superadmin: 'Superadmin' };
export const POSITION_LABEL: Record<OrgPosition, string> = { member: 'Member', manager: 'Manager', ceo: 'CEO' };

/** The spec's rules, said plainly when the server refuses (the server decides; this only words its answer). */
const RULES: Record<string, string> = {
  ceo_exists: 'There is already a CEO: an organisation has only one.',
  forbidden_role: 'Only the superadmin can change a platform role, and nobody can make another superadmin.',
  singleton_immutable: 'The CEO and the superadmin keep their position and role (they can be renamed).',
  email_exists: 'Someone already has this email address.',
  department_not_found: 'That department no longer exists.',
  user_in_other_department: 'This person is already in another department.',
  department_name_exists: 'A department with this name already exists.',
  group_name_exists: 'A group with this name already exists in the department.',
  user_not_in_department: "A group's members must belong to its department.",
};

/** An organisation screen: a section named by its heading (`<id>-title`), which names the tab too. */
export function AdminScreen({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  useTitle(title);
  return (
    <section className="admin" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>{title}</h1>
      {children}
    </section>
  );
}

type Bind = { value: string; onChange: (e: { target: { value: string } }) => void };

/** A person's place in the organisation as a form's fields (useFields' `field`): their position and department. */
export function PlaceFields({ field, departments }: { field: (k: 'orgPosition' | 'departmentId') => Bind; departments: Department[] }) {
  return (
    <>
      <Choices label="Org position" {...field('orgPosition')} choices={choicesOf(POSITION_LABEL)} />
      <Choices label="Department" {...field('departmentId')} empty="None" choices={namedChoices(departments)} />
    </>
  );
}

/** An error in words: the rule it hit when the server named one, else the server's own message. */
export function ruleMessage(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 403 && /delete your own account/i.test(e.message)) return 'You cannot delete your own account.';
    return RULES[e.code] ? `${RULES[e.code]} (${e.message})` : e.message;
  }
  return e instanceof Error ? e.message : 'Something went wrong';
}

/**
 * Runs a change and says how it went: `said` once it is done (then `after`, to reload what it
 * changed), or the rule the server named when it refused.
 */
export function useChange(after: () => void): {
  error: string | null;
  notice: string | null;
  run: (fn: () => Promise<unknown>, said: string) => Promise<void>;
} {
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const run = async (fn: () => Promise<unknown>, said: string) => {
    setError(null);
    setNotice(null);
    try {
      await fn();
      setNotice(said);
      after();
    } catch (e) {
      setError(ruleMessage(e));
    }
  };
  return { error, notice, run };
}
