import { User } from '../entities';
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
    if (!(await em.count(User, { platformRole: 'superadmin' }))) {
      const hash = await hashPassword(superadmin.password);
      // the partial unique index makes a concurrent second bootstrap fail instead of creating two
      const rows = await query(
        em,
        `insert into users (email, name, password_hash, platform_role, org_position, avatar_color)
         values (?, ?, ?, 'superadmin', 'member', ?) on conflict do nothing returning id`,
        [normalizeEmail(superadmin.email), superadmin.name.trim(), hash, avatarColorFor(superadmin.email)],
      );
      // another node may have won the race between the count and the insert
      if (rows.length) result.superadmin = 'created';
    }
    if (ceo && !(await em.count(User, { orgPosition: 'ceo' }))) {
      const hash = await hashPassword(ceo.password);
      const rows = await query(
        em,
        `insert into users (email, name, password_hash, platform_role, org_position, avatar_color)
         values (?, ?, ?, 'none', 'ceo', ?) on conflict do nothing returning id`,
        [normalizeEmail(ceo.email), ceo.name.trim(), hash, avatarColorFor(ceo.email)],
      );
      if (rows.length) result.ceo = 'created';
    }
    return result;
  }
}
