import { isIP } from 'node:net';
import { ipv6Groups } from '../util/net';

/** The first delay after the free failures, doubled by each further failure, up to the cap. */
export const LOCKOUT_BASE_SECONDS = 1;
export const LOCKOUT_MAX_SECONDS = 15 * 60;

/**
 * The delay owed after `failures` consecutive failures of which `free` cost nothing: 0 within the
 * free ones, then 1 s, 2 s, 4 s, … up to 15 min (decision 0009).
 */
export function delaySeconds(failures: number, free: number): number {
  const over = failures - free;
  if (over < 0) return 0;
  return Math.min(LOCKOUT_MAX_SECONDS, LOCKOUT_BASE_SECONDS * 2 ** Math.min(over, 30));
}

/**
 * What login limits count a client as: an IPv4 address as itself, an IPv6 client by its /64 (one
 * subscriber's allocation: rotating within it gains nothing), an IPv4-mapped IPv6 address as the
 * IPv4 address it carries, and so does a NAT64 address (64:ff9b::/96, RFC 6052): the IPv4 client
 * behind the translator, not the translator's /64 that every IPv4 client would share. Anything else (a Unix socket's "unknown") is used as given.
 */
export function clientKey(address: string): string {
  const kind = isIP(address.split('%')[0]);
  if (kind === 4) return address;
  if (kind !== 6) return address;
  const g = ipv6Groups(address);
  if (!g) return address;
  const v4 = () => [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff].join('.');
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return v4();
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4();
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}
