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
