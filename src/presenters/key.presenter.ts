import type { ApiKey } from '../entities';
import type { ApiKeyDto, CreatedKeyDto } from './dto.generated';
import { iso, isoOrNull } from './time';

/** A key for programs, never its secret or hash. */
export function presentKey(k: ApiKey): ApiKeyDto {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    projectIds: k.projectIds ?? null,
    tier: k.tier,
    expiresAt: isoOrNull(k.expiresAt),
    lastUsedAt: isoOrNull(k.lastUsedAt),
    createdAt: iso(k.createdAt),
  };
}

/** A new key with its secret, shown this once. */
export function presentCreatedKey(r: { key: ApiKey; secret: string }): CreatedKeyDto {
  return { key: presentKey(r.key), secret: r.secret };
}
