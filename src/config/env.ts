// The environment's parsers: one typed reader per kind of variable, each failing with one line that
// names the variable. This folder is the only reader of process.env.
import proxyaddr from 'proxy-addr';

/** A configuration problem; main prints `message` (one line naming the variable) and exits. */
export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

export function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** One of `values`; the first is the default. */
export function oneOf<T extends string>(env: Env, name: string, values: readonly T[]): T {
  const raw = str(env, name);
  if (raw === undefined) return values[0];
  if (!(values as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

export function url(env: Env, name: string): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  try {
    const u = new URL(raw);
    if (!['http:', 'https:', 'postgres:', 'postgresql:'].includes(u.protocol)) throw new Error();
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

export function list(env: Env, name: string): string[] {
  const raw = str(env, name);
  return raw
    ? raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}

/**
 * TRUST_PROXY: `false`/`0` (the socket's address), `true` (= 1: the one proxy in front of us), a
 * hop count, or a comma list of trusted proxy addresses/CIDRs (also `loopback`, `linklocal`,
 * `uniquelocal`), as Express's `trust proxy`: the client is the right-most untrusted address.
 */
export function trustProxy(env: Env): number | string[] {
  const raw = str(env, 'TRUST_PROXY');
  if (raw === undefined || /^(false|no|off)$/i.test(raw)) return 0;
  if (/^(true|yes|on)$/i.test(raw)) return 1;
  if (/^\d+$/.test(raw)) {
    const n = Number(raw);
    if (n > 100) throw new ConfigError(`TRUST_PROXY hop count must be at most 100, got ${n}`);
    return n;
  }
  const entries = list(env, 'TRUST_PROXY');
  try {
    proxyaddr.compile(entries);
  } catch (e) {
    throw new ConfigError(`TRUST_PROXY must be true, false, a hop count or a comma list of addresses/CIDRs: ${(e as Error).message}`);
  }
  return entries;
}

export function secret(env: Env, name: string, production: boolean): string | null {
  const value = str(env, name);
  if (value !== undefined && value.length < 16) throw new ConfigError(`${name} must be at least 16 characters`);
  if (value === undefined && production) throw new ConfigError(`${name} is required when NODE_ENV=production`);
  return value ?? null;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The environment child processes inherit (this module is the only reader of process.env). */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}

/** Variables a database server child may see: locale, time zone, search path, home and temp dirs, the loader path. */
const DATABASE_SERVER_ENV = ['PATH', 'HOME', 'TMPDIR', 'TZ', 'LANG', 'LANGUAGE', 'LD_LIBRARY_PATH'];

/**
 * The environment of the embedded PostgreSQL (initdb and the server): an allow-list, so no secret
 * of ours (JWT_SECRET, ENCRYPTION_KEY, provider keys, bootstrap passwords, DATABASE_URL, …), nor one
 * added later, reaches a process any SQL session can read with `pg_read_binary_file('/proc/self/environ')`.
 */
export function databaseServerEnv(env: Env = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (DATABASE_SERVER_ENV.includes(name) || /^LC_[A-Z]+$/.test(name))) out[name] = value;
  }
  // messages in English whatever the locale: start-up failures are matched on their text
  out.LC_MESSAGES = 'C';
  return out;
}
