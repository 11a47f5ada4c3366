/**
 * Compile-time checks of the typed API calls (web/lib/routes.ts), never run or bundled: the web
 * typecheck (`tsc -p web/tsconfig.json`) compiles this file, so each `@ts-expect-error` below must
 * meet the error it names or the typecheck fails; test/unit/web-route-types.test.ts also compiles it
 * without the directives and checks that every one of those lines, and only those, is refused.
 */
import type { Api } from './api';

export async function typedCalls(api: Api, id: string, file: FormData): Promise<void> {
  // bodies the server accepts compile, and answers have the operation's type
  const { project } = await api.send('PATCH', `/projects/${id}`, { name: 'Q3', settings: { topK: 5 } });
  project.name.toUpperCase();
  await api.send('PATCH', `/users/${encodeURIComponent(id)}`, { departmentId: null });
  await api.send('PATCH', `/projects/${id}`, { settings: { model: null } }); // null removes a settings key
  await api.send('POST', `/departments/${id}/members`, { userIds: [id], replace: true });
  await api.send('POST', '/auth/logout');
  (await api.send('POST', `/projects/${id}/documents`, file)).documents[0].name.trim();
  (await api.get(`/documents/${id}/text?from=3`)).pages.at(0);
  (await api.get('/users/me')).user.email.trim();
  const base = `/groups/${id}` as const;
  await api.send('POST', `${base}/members`, { userIds: [id] });

  // @ts-expect-error a field the input class does not have (userId for userIds)
  await api.send('POST', `/departments/${id}/members`, { userId: [id] });
  // @ts-expect-error a field of the wrong type (topK is a number)
  await api.send('PATCH', `/projects/${id}`, { settings: { topK: '5' } });
  // @ts-expect-error a value outside the enum (tiers are use, edit, full)
  await api.send('POST', `/projects/${id}/grants`, { targetType: 'user', targetId: id, tier: 'owner' });
  // @ts-expect-error a required field left out (password)
  await api.send('POST', '/users', { email: 'a@example.com', name: 'A', platformRole: 'none', orgPosition: 'member' });
  // @ts-expect-error null where the server refuses it (only @IsOptional() fields take null)
  await api.send('PATCH', `/projects/${id}`, { name: null });
  // @ts-expect-error feedback without its rating
  await api.send('POST', `/chat/messages/${id}/feedback`, { comment: 'good' });
  // @ts-expect-error a body where the operation takes none
  await api.send('DELETE', `/documents/${id}`, { force: true });
  // @ts-expect-error no body where the operation needs one
  await api.send('POST', '/projects');
  // @ts-expect-error a path no operation has
  await api.get('/project');
  // @ts-expect-error a method the path does not have
  await api.send('PATCH', `/documents/${id}`, {});
  // @ts-expect-error a path typed only as string matches nothing
  await api.get(String(id));
  // @ts-expect-error an answer read as something it is not
  const _wrong: unknown = (await api.get('/projects')).project;
}
