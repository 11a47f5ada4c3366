import type { EntityManager } from '@mikro-orm/postgresql';
import { OrgPosition, PlatformRole, User } from '../entities';
import { ValidationError } from '../errors';
import { BaseService } from '../db/service-context';
import { hashPassword, normalizeEmail } from '../auth/passwords';
import { avatarColorFor } from '../domain/avatar';
import { query } from '../db/sql';

export interface BootstrapPerson {
  email: string;
  password: string;
  name: string;
}

export interface BootstrapResult {
  superadmin: 'created' | 'exists';
  ceo: 'created' | 'exists' | 'skipped';
}

function check(p: BootstrapPerson, who: string): void {
  if (!/^[^@\s]+@[^@\s]+$/.test(p.email)) throw ValidationError.field(`${who}.email`, `${who} email is not an email address`);
  if (p.password.length < 8) throw ValidationError.field(`${who}.password`, `${who} password must be at least 8 characters`);
  if (!p.name.trim()) throw ValidationError.field(`${who}.name`, `${who} name is required`);
}

/** One-time platform initialisation: creates the superadmin and (optionally) the CEO. Idempotent. */
export class BootstrapService extends BaseService {
  /** True once a superadmin exists (login answers 503 not_bootstrapped until then). */
  async isBootstrapped(): Promise<boolean> {
    return (await this.em().count(User, { platformRole: 'superadmin' })) > 0;
  }

  async bootstrap(superadmin: BootstrapPerson, ceo?: BootstrapPerson): Promise<BootstrapResult> {
    check(superadmin, 'superadmin');
    if (ceo) check(ceo, 'ceo');
    const result: BootstrapResult = { superadmin: 'exists', ceo: ceo ? 'exists' : 'skipped' };
    const em = this.em();
    // another node may have won the race between the count and the insert
    if (!(await em.count(User, { platformRole: 'superadmin' })) && (await insertOnce(em, superadmin, 'superadmin', 'member'))) {
      result.superadmin = 'created';
    }
    if (ceo && !(await em.count(User, { orgPosition: 'ceo' })) && (await insertOnce(em, ceo, 'none', 'ceo'))) result.ceo = 'created';
    return result;
  }
}

/**
 * Inserts the person with their platform role and org position; false when the row was not written
 * because the partial unique indexes (one superadmin, one CEO) found one there already, which makes a
 * concurrent second bootstrap create nobody instead of two.
 */
async function insertOnce(em: EntityManager, p: BootstrapPerson, platformRole: PlatformRole, orgPosition: OrgPosition): Promise<boolean> {
  const rows = await query(
    em,
    `insert into users (email, name, password_hash, platform_role, org_position, avatar_color)
     values (?, ?, ?, ?, ?, ?) on conflict do nothing returning id`,
    [normalizeEmail(p.email), p.name.trim(), await hashPassword(p.password), platformRole, orgPosition, avatarColorFor(p.email)],
  );
  return rows.length > 0;
}
