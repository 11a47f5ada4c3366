import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql';
import { Document } from '../entities';
import { ForbiddenError, NotFoundError, RateLimitedError, UnauthorizedError } from '../errors';
import { type Actor, ACTOR_COLUMNS, actorFromRow, type ActorRow, type KeyScope } from './actor';
import { keyActor, liveKeyScope } from './keys';
import { requireTier } from './read-rules';

/**
 * Live streams follow access (issue 25): every open stream (a chat answer over SSE or graphql-ws, a
 * `documentProgress` subscription) is registered here with what it depends on. A change that can
 * take access away names the users, projects or documents it touched (`AccessChange`, carried by
 * the `docqa_access_changed` notification that database triggers send in the writing transaction);
 * only the streams it names are checked again (`accessLost`, the same resolver as every request)
 * and those that lost access are ended with `unauthorized` or `forbidden`.
 */

/** The PostgreSQL channel the access triggers notify (migration Migration20261124202229). */
export const ACCESS_CHANNEL = 'docqa_access_changed';

/** Why a stream was ended: the caller is gone or inactive (`unauthorized`), or lost `use` (`forbidden`). */
export type LiveLoss = UnauthorizedError | ForbiddenError;

/** What a stream depends on. */
export interface LiveScope {
  userId: string;
  projectId: string;
  documentId?: string | null;
  /** The key the stream was opened with, if any: its revocation ends the stream. */
  keyId?: string | null;
}

/** What changed; `all` when unknown (the listener reconnected and may have missed notifications). */
export interface AccessChange {
  users?: string[];
  projects?: string[];
  documents?: string[];
  all?: boolean;
}

/** One registered stream; `end` is called at most once. */
export interface LiveEntry extends LiveScope {
  readonly end: (loss: LiveLoss) => void;
}

/**
 * Reads one trigger payload: `{"u": id}` (a user's status, role, department, groups, or the user
 * deleted), `{"p": id}` (a project's grants, visibility, owner, or the project deleted), `{"d": id}`
 * (a document deleted; a key's revocation names its owner). Anything else is treated as "unknown change": everything is re-checked.
 */
export function parseAccessChange(payload: string): AccessChange {
  try {
    const v = JSON.parse(payload) as { u?: unknown; p?: unknown; d?: unknown };
    if (typeof v.u === 'string') return { users: [v.u] };
    if (typeof v.p === 'string') return { projects: [v.p] };
    if (typeof v.d === 'string') return { documents: [v.d] };
  } catch {
    // fall through
  }
  return { all: true };
}

/** The registry of this process's open streams, indexed by user, project and document; caps streams per user. */
export class LiveStreams {
  private readonly all = new Set<LiveEntry>();
  private readonly byUser = new Map<string, Set<LiveEntry>>();
  private readonly byProject = new Map<string, Set<LiveEntry>>();
  private readonly byDocument = new Map<string, Set<LiveEntry>>();

  /** `maxPerUser`: open streams one user may hold on this node (0: no limit). */
  constructor(private readonly maxPerUser: number) {}

  /**
   * Registers a stream; `end` runs once when it loses access. Throws 429 `rate_limited` when the
   * user already holds `maxPerUser` streams. Returns the entry, for `remove`.
   */
  add(scope: LiveScope, end: (loss: LiveLoss) => void): LiveEntry {
    if (this.maxPerUser > 0 && this.countFor(scope.userId) >= this.maxPerUser)
      throw new RateLimitedError(1, `At most ${this.maxPerUser} live streams per user; close one first`);
    let ended = false;
    const entry: LiveEntry = {
      userId: scope.userId,
      projectId: scope.projectId,
      documentId: scope.documentId ?? null,
      keyId: scope.keyId ?? null,
      end: (loss) => {
        if (ended) return;
        ended = true;
        this.remove(entry);
        end(loss);
      },
    };
    this.all.add(entry);
    index(this.byUser, entry.userId, entry);
    index(this.byProject, entry.projectId, entry);
    if (entry.documentId) index(this.byDocument, entry.documentId, entry);
    return entry;
  }

  /** Unregisters a stream (it ended on its own); safe to call twice. */
  remove(entry: LiveEntry): void {
    if (!this.all.delete(entry)) return;
    unindex(this.byUser, entry.userId, entry);
    unindex(this.byProject, entry.projectId, entry);
    if (entry.documentId) unindex(this.byDocument, entry.documentId, entry);
  }

  countFor(userId: string): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  get size(): number {
    return this.all.size;
  }

  /** The streams a change may have taken access from (each once). */
  affected(change: AccessChange): LiveEntry[] {
    if (change.all) return [...this.all];
    const out = new Set<LiveEntry>();
    for (const id of change.users ?? []) for (const e of this.byUser.get(id) ?? []) out.add(e);
    for (const id of change.projects ?? []) for (const e of this.byProject.get(id) ?? []) out.add(e);
    for (const id of change.documents ?? []) for (const e of this.byDocument.get(id) ?? []) out.add(e);
    return [...out];
  }
}

function index(map: Map<string, Set<LiveEntry>>, key: string, entry: LiveEntry): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(entry);
}

function unindex(map: Map<string, Set<LiveEntry>>, key: string, entry: LiveEntry): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(entry);
  if (!set.size) map.delete(key);
}

/**
 * The caller a stream still runs for, from their re-read row and (for a stream opened with a key)
 * the key's live scope: 401 when the account is gone or inactive, or the key is revoked or expired
 * (`key` null); else the owner, capped by the key.
 */
export function liveCaller(row: ActorRow | undefined, keyId: string | null | undefined, key: KeyScope | null): Actor | UnauthorizedError {
  if (!row || row.status !== 'active') return new UnauthorizedError('unauthorized', 'Your account is no longer active');
  if (!keyId) return actorFromRow(row);
  if (!key) return new UnauthorizedError('unauthorized', 'The key was revoked or has expired');
  return keyActor(actorFromRow(row), key);
}

/**
 * Whether a stream's caller still may read it, by the same rules as a new request: the user exists
 * and is active, and the stream's key (if any) is neither revoked nor expired (else `unauthorized`), holds `use` on the project (else `forbidden`, also when the
 * project is gone), and the document, if any, still exists in that project (else `forbidden`).
 * Null: access holds.
 */
export async function accessLost(em: EntityManager, scope: LiveScope): Promise<LiveLoss | null> {
  const [row] = await query<ActorRow>(em, `select ${ACTOR_COLUMNS} from users where id = ?`, [scope.userId]);
  const actor = liveCaller(row, scope.keyId, scope.keyId ? await liveKeyScope(em, scope.keyId) : null);
  if (actor instanceof UnauthorizedError) return actor;
  try {
    await requireTier(em, actor, scope.projectId, 'use');
  } catch (e) {
    if (e instanceof NotFoundError) return new ForbiddenError('forbidden', 'The project was deleted');
    if (e instanceof ForbiddenError) return new ForbiddenError('forbidden', 'You no longer have access to this project');
    throw e;
  }
  if (scope.documentId) {
    const n = await em.count(Document, { id: scope.documentId, project: scope.projectId });
    if (!n) return new ForbiddenError('forbidden', 'The document was deleted');
  }
  return null;
}
