import bcrypt from 'bcrypt';
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Semaphore } from '../util/semaphore';

/** spec: passwords are stored as bcrypt hashes with cost factor 10. */
export const BCRYPT_COST = 10;

/**
 * At most one bcrypt operation per core at a time: more only queues inside libuv's pool and
 * starves the event loop (and everyone else's requests) during a login storm.
 */
const bcryptSlots = new Semaphore(Math.max(1, availableParallelism()));

/** bcrypt runs on libuv's thread pool, so hashing never blocks the event loop. */
export const hashPassword = (password: string): Promise<string> => bcryptSlots.run(() => bcrypt.hash(password, BCRYPT_COST));

let dummy: Promise<string> | null = null;

/** A hash of a random password, compared against when the email is unknown (made once per process). */
export function dummyHash(): Promise<string> {
  return (dummy ??= hashPassword(randomUUID()));
}

/**
 * Whether `password` matches `hash`. Without a hash (no such account) it still costs one bcrypt
 * compare, against the dummy hash, so both paths take the same time.
 */
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  const against = hash ?? (await dummyHash());
  const ok = await bcryptSlots.run(() => bcrypt.compare(password, against));
  return ok && hash != null;
}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
