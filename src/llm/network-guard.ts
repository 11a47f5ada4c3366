import dns from 'node:dns';
import net from 'node:net';
import { ipv6Groups } from '../util/net';

/**
 * SSRF guard for outgoing calls to URLs that users supply (provider base URLs, draft tests).
 * Private, loopback, link-local and other non-public addresses are refused unless the network
 * policy allows private targets or the host (name, address or CIDR) is allow-listed. The check
 * runs inside the socket's DNS lookup, so the address that is checked is the one connected to
 * (no window for DNS rebinding between check and connect).
 */
export interface NetworkPolicy {
  allowPrivateNetwork: boolean;
  privateHostAllowList: string[];
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      `Refused to connect to ${host} (${address}): private, loopback and link-local addresses are not allowed (see ALLOW_PRIVATE_NETWORK / PRIVATE_HOST_ALLOWLIST)`,
    );
  }
}

const nonPublic = new net.BlockList();
for (const [net4, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  nonPublic.addSubnet(net4, prefix, 'ipv4');
for (const [net6, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
  ['100::', 64],
] as const)
  nonPublic.addSubnet(net6, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d), else the input. */
function unmap(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1] : address;
}

/**
 * IPv4-compatible (::/96), IPv4-mapped in hex form (::ffff:0:0/96) and IPv4-translated
 * (::ffff:0:0:0/96) addresses: some stacks route them to the IPv4 host they carry, and none is a
 * public IPv6 destination. (Not in the BlockList: Node's BlockList matches IPv4 addresses against
 * an IPv6 ::ffff:0:0/96 rule, which would block every IPv4 address.)
 */
function embedsIpv4(address: string): boolean {
  const g = ipv6Groups(address);
  if (!g || !g.slice(0, 4).every((x) => x === 0)) return false;
  return (g[4] === 0 && (g[5] === 0 || g[5] === 0xffff)) || (g[4] === 0xffff && g[5] === 0);
}

/** True for any address that is not a public unicast address. */
export function isNonPublicAddress(address: string): boolean {
  if (net.isIP(address) === 6 && embedsIpv4(address)) return true;
  const a = unmap(address);
  const family = net.isIP(a);
  if (family === 0) return true;
  return nonPublic.check(a, family === 4 ? 'ipv4' : 'ipv6');
}

function allowListed(policy: NetworkPolicy, host: string, address?: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  for (const entry of policy.privateHostAllowList) {
    const e = entry.toLowerCase();
    if (e === h || (address && e === unmap(address))) return true;
    const cidr = /^(.+)\/(\d{1,3})$/.exec(e);
    if (cidr && address) {
      const family = net.isIP(cidr[1]);
      const a = unmap(address);
      if (family && net.isIP(a) === family) {
        const list = new net.BlockList();
        try {
          list.addSubnet(cidr[1], Number(cidr[2]), family === 4 ? 'ipv4' : 'ipv6');
        } catch {
          continue;
        }
        if (list.check(a, family === 4 ? 'ipv4' : 'ipv6')) return true;
      }
    }
  }
  return false;
}

/** Throws BlockedAddressError when the policy refuses this host/address pair. */
export function checkAddress(policy: NetworkPolicy, host: string, address: string): void {
  if (policy.allowPrivateNetwork) return;
  if (isNonPublicAddress(address) && !allowListed(policy, host, address)) throw new BlockedAddressError(host, address);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request/net.connect that refuses non-public addresses. Node skips lookup for
 * IP literals, so callers also run `checkLiteralHost` before connecting.
 */
export function guardedLookup(policy: NetworkPolicy) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '', 0);
      try {
        for (const a of addresses) checkAddress(policy, hostname, a.address);
      } catch (e) {
        return callback(e as NodeJS.ErrnoException, options.all ? [] : '', 0);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      callback(null, first.address, first.family);
    });
  };
}

/** Checks a URL whose host is an IP literal (those bypass the DNS lookup hook). */
export function checkLiteralHost(policy: NetworkPolicy, url: URL): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) checkAddress(policy, host, host);
}
