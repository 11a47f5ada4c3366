import net from 'node:net';

/**
 * A TCP proxy on loopback between a browser and the server, for network blips: it passes bytes both
 * ways untouched, notes each request's head, and when armed cuts the connection whose request
 * matches a pattern once its response has carried a number of SSE `text` events (both sockets are
 * destroyed, as when a network drops). The browser sees the proxy's origin as the app's.
 */
export interface BlipProxy {
  url: string;
  /** The server the proxy forwards to (set before the first connection). */
  target: number | null;
  /** Each request's head (request line and headers), in arrival order. */
  heads: string[];
  /** Cuts the next request matching `request` (its head) after `textEvents` `text` events; resolves when cut. */
  cutAfter(request: RegExp, textEvents: number): Promise<void>;
  close(): Promise<void>;
}

export async function startBlipProxy(): Promise<BlipProxy> {
  let armed: { request: RegExp; textEvents: number; cut: () => void } | null = null;
  const sockets = new Set<net.Socket>();
  const proxy: BlipProxy = {
    url: '',
    target: null,
    heads: [],
    cutAfter(request, textEvents) {
      return new Promise((cut) => (armed = { request, textEvents, cut }));
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(proxy.target!, '127.0.0.1');
    sockets.add(client).add(upstream);
    let watch: { textEvents: number; cut: () => void; seen: string } | null = null;
    client.on('data', (d: Buffer) => {
      const text = d.toString('latin1');
      const head = /^[A-Z]+ \S+ HTTP\/1\.1\r\n[\s\S]*?\r\n\r\n/.exec(text);
      if (head) {
        proxy.heads.push(head[0]);
        if (armed && armed.request.test(head[0])) {
          watch = { textEvents: armed.textEvents, cut: armed.cut, seen: '' };
          armed = null;
        }
      }
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      client.write(d);
      if (!watch) return;
      watch.seen += d.toString('utf8');
      if ((watch.seen.match(/^event: text$/gm) ?? []).length >= watch.textEvents) {
        const { cut } = watch;
        watch = null;
        client.destroy();
        upstream.destroy();
        cut();
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return proxy;
}
