import type { Actor } from '../access/actor';
import { requireKeyManager, requireKeyOwnerOrAdmin } from '../access/keys';
import { ACCESS_CHANNEL } from '../access/live-streams';
import { newKeySecret } from '../auth/api-keys';
import { query } from '../db/sql';
import { ApiKey, User } from '../entities';
import { NotFoundError, ValidationError } from '../errors';
import { isUuid } from '../validation';
import type { AuditService } from './audit.service';
import { BaseService, ServiceContext } from '../db/service-context';
import type { CreateKeyInput, ListKeysQuery } from './keys.inputs';
import { keyEntry } from '../db/audit-entries';

/** Keys for programs (issue 38): create (secret shown once), list, revoke; REST and GraphQL call these. */
export class KeysService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly audit: AuditService,
  ) {
    super(ctx);
  }

  /** POST /keys: a key owned by the caller; only its hash is stored, the secret is returned once. */
  async create(actor: Actor, input: CreateKeyInput): Promise<{ key: ApiKey; secret: string }> {
    requireKeyManager(actor, input);
    const expiresAt = input.expiresAt === undefined ? null : new Date(input.expiresAt);
    if (expiresAt && expiresAt.getTime() <= Date.now()) throw ValidationError.field('expiresAt', 'expiresAt must be in the future');
    const { secret, hash, prefix } = newKeySecret();
    const key = await this.em().transactional(async (em) => {
      const k = em.create(ApiKey, {
        user: em.getReference(User, actor.id),
        name: input.name,
        prefix,
        secretHash: hash,
        projectIds: input.projectIds ? [...new Set(input.projectIds)] : null,
        tier: input.tier ?? 'full',
        platform: input.platform ?? false,
        expiresAt,
      });
      await em.flush();
      await this.audit.record(
        em,
        actor,
        keyEntry('key_created', k.id, {
          name: k.name,
          tier: k.tier,
          projectIds: k.projectIds ?? null,
          platform: k.platform,
          expiresAt: k.expiresAt ?? null,
        }),
      );
      return k;
    });
    return { key, secret };
  }

  /** GET /keys: the caller's keys (admins: `userId`'s), newest first, never their secrets. */
  async list(actor: Actor, q: ListKeysQuery = {}): Promise<ApiKey[]> {
    const ownerId = q.userId ?? actor.id;
    requireKeyOwnerOrAdmin(actor, ownerId);
    return this.em().find(ApiKey, { user: ownerId, revokedAt: null }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  }

  /** DELETE /keys/:id: revokes a key (its owner's or, for admins, anyone's); its open streams end. */
  async revoke(actor: Actor, id: string): Promise<void> {
    requireKeyManager(actor);
    const notFound = () => new NotFoundError('not_found', 'Key not found');
    if (!isUuid(id)) throw notFound();
    await this.em().transactional(async (em) => {
      const key = await em.findOne(ApiKey, { id, revokedAt: null });
      if (!key) throw notFound();
      // someone else's key: admins only, and others learn nothing about which ids exist
      try {
        requireKeyOwnerOrAdmin(actor, key.user.id);
      } catch {
        throw notFound();
      }
      key.revokedAt = new Date();
      await em.flush();
      await this.audit.record(em, actor, keyEntry('key_revoked', key.id, { name: key.name, ownerId: key.user.id }));
      // streams opened with the key end on every node (the live-access listener re-checks the owner's streams)
      await query(em, `select pg_notify(?, json_build_object('u', ?::text)::text)`, [ACCESS_CHANNEL, key.user.id]);
    });
  }
}
