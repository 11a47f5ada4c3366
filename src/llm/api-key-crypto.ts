import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Provider API keys at rest: AES-256-GCM with a 256-bit key derived by HKDF-SHA256 from the
 * server secret (JWT_SECRET). Stored form: `v1.<iv>.<tag>.<ciphertext>` (base64url), so a later
 * scheme can be told apart. Rotating JWT_SECRET makes stored keys unreadable: they must be
 * entered again (the error says so).
 */
const VERSION = 'v1';
const SALT = 'docqa/provider-api-key';
const INFO = 'aes-256-gcm v1';

export class ApiKeyDecryptError extends Error {}

export class ApiKeyCipher {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = Buffer.from(hkdfSync('sha256', serverSecret, SALT, INFO, 32));
  }

  /** Encrypts a key; the empty key stays empty (nothing to protect, and it reads as "no key"). */
  encrypt(plain: string): string {
    if (!plain) return '';
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  decrypt(stored: string): string {
    if (!stored) return '';
    const [version, iv, tag, ct] = stored.split('.');
    if (version !== VERSION || !iv || !tag || ct === undefined) throw new ApiKeyDecryptError('stored API key has an unknown format');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new ApiKeyDecryptError('the stored API key cannot be decrypted (was JWT_SECRET changed?); enter the key again');
    }
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
