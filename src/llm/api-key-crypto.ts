import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Provider API keys at rest: AES-256-GCM with a 256-bit key derived by HKDF-SHA256 from the
 * key-encryption key (ENCRYPTION_KEY, or the one generated into the database). The provider's
 * normalised origin (scheme://host:port) is the ciphertext's associated data, so a key only
 * decrypts for the origin it was stored with: editing `base_url` in the database cannot re-point it.
 * Stored form: `v2.<iv>.<tag>.<ciphertext>` (base64url). `v1` (no associated data, key derived
 * from JWT_SECRET) is only read by the start-up migration, which re-encrypts it as `v2`.
 */
const VERSION = 'v2';
const SALT = 'docqa/provider-api-key';
const INFO = 'aes-256-gcm v2 origin-bound';
const LEGACY_VERSION = 'v1';
const LEGACY_INFO = 'aes-256-gcm v1';

export class ApiKeyDecryptError extends Error {}

/** `scheme://host[:port]`, lower-case, default port dropped (what the URL standard serialises). */
export function keyOrigin(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.protocol}//${u.host}`.toLowerCase();
  } catch {
    throw new ApiKeyDecryptError('the provider baseUrl is not a URL');
  }
}

/** Two base URLs share scheme, host and port (the origin a stored key is bound to). */
export function sameOrigin(a: string, b: string): boolean {
  try {
    return keyOrigin(a) === keyOrigin(b);
  } catch {
    return false;
  }
}

function open(key: Buffer, stored: string, aad: Buffer | null): string {
  const [, iv, tag, ct] = stored.split('.');
  if (!iv || !tag || ct === undefined) throw new Error('malformed');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

export class ApiKeyCipher {
  private readonly key: Buffer;

  constructor(encryptionKey: string) {
    this.key = Buffer.from(hkdfSync('sha256', encryptionKey, SALT, INFO, 32));
  }

  /** Encrypts a key for `baseUrl`'s origin; the empty key stays empty (it reads as "no key"). */
  encrypt(plain: string, baseUrl: string): string {
    if (!plain) return '';
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(keyOrigin(baseUrl), 'utf8'));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  /** The key stored for `baseUrl`; fails unless it was stored for that origin with this key. */
  decrypt(stored: string, baseUrl: string): string {
    if (!stored) return '';
    const version = stored.split('.')[0];
    if (version === LEGACY_VERSION) {
      throw new ApiKeyDecryptError(
        'the stored API key is in the old format and could not be migrated (was JWT_SECRET changed?); enter the key again',
      );
    }
    if (version !== VERSION) throw new ApiKeyDecryptError('the stored API key has an unknown format; enter the key again');
    try {
      return open(this.key, stored, Buffer.from(keyOrigin(baseUrl), 'utf8'));
    } catch {
      throw new ApiKeyDecryptError(
        "the stored API key cannot be used: it was stored for another origin than the provider's baseUrl (or ENCRYPTION_KEY changed); enter the key again",
      );
    }
  }
}

/** `v1` ciphertexts (key from JWT_SECRET, no associated data): read once, by the start-up migration. */
export function isLegacyApiKey(stored: string): boolean {
  return stored.startsWith(`${LEGACY_VERSION}.`);
}

export function decryptLegacyApiKey(stored: string, jwtSecret: string): string {
  const key = Buffer.from(hkdfSync('sha256', jwtSecret, SALT, LEGACY_INFO, 32));
  try {
    return open(key, stored, null);
  } catch {
    throw new ApiKeyDecryptError('the stored API key cannot be decrypted with JWT_SECRET');
  }
}

/**
 * The masked form shown in the admin listing: prefix, ellipsis, suffix. Short keys reveal less,
 * so the mask never gives away more than half of a key.
 */
export function maskApiKey(plain: string): string {
  if (!plain) return '';
  if (plain.length >= 16) return `${plain.slice(0, 4)}…${plain.slice(-4)}`;
  if (plain.length >= 8) return `${plain.slice(0, 2)}…${plain.slice(-2)}`;
  return '…';
}
