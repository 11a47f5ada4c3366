import { isIP } from 'node:net';

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

/** The eight 16-bit groups of an IPv6 address (zone id dropped, an embedded IPv4 tail expanded), or null. */
function ipv6Groups(address: string): number[] | null {
  let a = address.split('%')[0];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (v4) {
    const [b1, b2, b3, b4] = v4[1].split('.').map(Number);
    a = a.slice(0, -v4[1].length) + `${((b1 << 8) | b2).toString(16)}:${((b3 << 8) | b4).toString(16)}`;
  }
  const [head, tail] = a.split('::');
  const parse = (s: string | undefined) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const groups = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/**
 * What login limits count a client as: an IPv4 address as itself, an IPv6 client by its /64 (one
 * subscriber's allocation: rotating within it gains nothing), an IPv4-mapped IPv6 address as the
 * IPv4 address it carries. Anything else (a Unix socket's "unknown") is used as given.
 */
export function clientKey(address: string): string {
  const kind = isIP(address.split('%')[0]);
  if (kind === 4) return address;
  if (kind !== 6) return address;
  const g = ipv6Groups(address);
  if (!g) return address;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff].join('.');
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}
