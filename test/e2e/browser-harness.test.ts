import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openPage } from '../support/browser';

/** The browser harness itself: a real Chromium renders a local page and reports foreign requests. */
describe('browser harness', () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/app.js') {
        res.setHeader('content-type', 'text/javascript');
        res.end(`document.getElementById('out').textContent = 'ran ' + (2 + 3);`);
        return;
      }
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><p id="out">waiting</p><script src="/app.js"></script>` + `<img src="http://192.0.2.1:9/pixel.png">`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('runs same-origin scripts and records (and blocks) requests to other origins', async () => {
    const { page, foreignRequests, close } = await openPage(`${base}/`);
    try {
      await page.locator('#out', { hasText: 'ran 5' }).waitFor();
      expect(foreignRequests).toEqual(['http://192.0.2.1:9/pixel.png']);
    } finally {
      await close();
    }
  }, 60_000);
});
