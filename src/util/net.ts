import net from 'node:net';

/** A TCP port that was free on 127.0.0.1 a moment ago (for tests, benchmarks and the embedded database). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Two base URLs name the same endpoint (scheme, host, port, path, query). */
export function sameEndpoint(a: string, b: string): boolean {
  const norm = (s: string) => {
    const u = new URL(s);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  };
  try {
    return norm(a) === norm(b);
  } catch {
    return false;
  }
}

/** The eight 16-bit groups of an IPv6 address (zone id dropped, an embedded IPv4 tail expanded), or null. */
export function ipv6Groups(address: string): number[] | null {
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
