import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeyCipher, decryptLegacyApiKey, isLegacyApiKey } from '../llm/api-key-crypto';
import type { ServiceContext } from '../db/service-context';
import { query } from '../db/sql';

const JWT_SECRET_KEY = 'jwt_secret';
const ENCRYPTION_KEY_KEY = 'encryption_key';

/**
 * The deployment's secrets: the JWT signing secret and the key-encryption key of provider API
 * keys. Each comes from the environment (JWT_SECRET, ENCRYPTION_KEY) or, when unset outside
 * production, is generated once into the `settings` table (`insert … on conflict do nothing`, so
 * concurrent nodes agree) — every node and worker on one database uses the same values.
 */
export class DeploymentSecrets {
  private jwt: string | null;
  private encryptionKey: string | null;
  private cipherInstance: ApiKeyCipher | null = null;

  constructor(private readonly ctx: ServiceContext) {
    // given by the environment: usable at once; otherwise after load()
    this.jwt = ctx.config.jwtSecret;
    this.encryptionKey = ctx.config.encryptionKey;
  }

  get jwtSecret(): string {
    if (!this.jwt) throw new Error('the JWT secret is used before services.start() loaded it');
    return this.jwt;
  }

  get cipher(): ApiKeyCipher {
    if (!this.encryptionKey) throw new Error('the encryption key is used before services.start() loaded it');
    return (this.cipherInstance ??= new ApiKeyCipher(this.encryptionKey));
  }

  /** Reads (or generates) the secrets, then re-encrypts provider keys still in the old format. */
  async load(): Promise<void> {
    const em = this.ctx.orm.em.fork();
    const { config } = this.ctx;
    this.jwt = config.jwtSecret ?? (await this.stored(em, JWT_SECRET_KEY, this.legacyJwtSecretFile()));
    this.encryptionKey = config.encryptionKey ?? (await this.stored(em, ENCRYPTION_KEY_KEY, null));
    if (!config.encryptionKey && config.nodeEnv === 'production') {
      this.ctx.logger.warn(
        'ENCRYPTION_KEY is not set: provider API keys are encrypted with a key generated into the database; set ENCRYPTION_KEY (16+ characters) so that a database dump alone cannot read them',
      );
    }
    this.cipherInstance = null;
    await this.migrateLegacyApiKeys(em, this.jwt);
  }

  /** The value under `key`, generated (or seeded) by whichever node gets there first. */
  private async stored(em: EntityManager, key: string, seed: string | null): Promise<string> {
    const value = seed ?? randomBytes(48).toString('base64url');
    await query(em, `insert into settings (key, value) values (?, ?) on conflict (key) do nothing`, [key, value]);
    const rows: Array<{ value: string }> = await query(em, `select value from settings where key = ?`, [key]);
    if (key === JWT_SECRET_KEY && seed !== null) rmSync(path.join(this.ctx.config.dataDir, 'jwt-secret'), { force: true });
    return rows[0].value;
  }

  /** Earlier versions kept a generated JWT secret in DATA_DIR; it seeds the stored one, then goes. */
  private legacyJwtSecretFile(): string | null {
    const file = path.join(this.ctx.config.dataDir, 'jwt-secret');
    if (!existsSync(file)) return null;
    const v = readFileSync(file, 'utf8').trim();
    return v.length >= 16 ? v : null;
  }

  /** `v1` provider keys (derived from JWT_SECRET, not origin-bound) → `v2`, in one transaction. */
  private async migrateLegacyApiKeys(em: EntityManager, jwtSecret: string): Promise<void> {
    await em.transactional(async (tx) => {
      await query(tx, `select pg_advisory_xact_lock(hashtext('docqa:providers'))`);
      const rows: Array<{ id: string; base_url: string; api_key_enc: string }> = await query(
        tx,
        `select id, base_url, api_key_enc from providers where api_key_enc like 'v1.%'`,
      );
      for (const row of rows) {
        if (!isLegacyApiKey(row.api_key_enc)) continue;
        let plain: string;
        try {
          plain = decryptLegacyApiKey(row.api_key_enc, jwtSecret);
        } catch {
          this.ctx.logger.warn(
            { providerId: row.id },
            'provider API key in the old format cannot be decrypted with JWT_SECRET; it must be entered again',
          );
          continue;
        }
        await query(tx, `update providers set api_key_enc = ? where id = ?`, [this.cipher.encrypt(plain, row.base_url), row.id]);
      }
      if (rows.length) this.ctx.logger.info({ count: rows.length }, 'provider API keys re-encrypted (origin-bound, ENCRYPTION_KEY)');
    });
  }
}
