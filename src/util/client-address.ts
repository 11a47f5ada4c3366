import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

export type TrustProxy = number | string[];
export type TrustFunction = (addr: string, hop: number) => boolean;

/** TRUST_PROXY as the function Express's `trust proxy` and proxy-addr both take. */
export function trustFunction(trust: TrustProxy): TrustFunction {
  if (typeof trust === 'number') return (_addr, hop) => hop < trust;
  return proxyaddr.compile(trust);
}

/**
 * The client's address under TRUST_PROXY: the socket's address, or walking X-Forwarded-For from
 * the right past trusted proxies, the first untrusted one (what `req.ip` is for REST). WebSocket
 * upgrades use this too, so every transport counts rate limits against the same address.
 */
export function clientAddress(req: IncomingMessage, trust: TrustFunction): string {
  if (!req.socket?.remoteAddress) return 'unknown';
  return proxyaddr(req, trust);
}
