import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { extract } from 'tar-fs';

/**
 * A real headless Chromium for browser tests, with no download: the binary is the one shipped inside
 * the `@sparticuz/chromium` registry package (brotli-compressed, linked only against libc, libgcc
 * and expat, so it runs on a bare Debian). It is unpacked once per package version into the system
 * temp dir, atomically (unpacked beside, then renamed), so parallel jest workers or two checkouts
 * never launch a half-written binary.
 */
const packageRoot = path.resolve(path.dirname(require.resolve('@sparticuz/chromium')), '..', '..');
const packageVersion = (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

let unpacked: Promise<string> | undefined;

async function unpack(): Promise<string> {
  const target = path.join(os.tmpdir(), `docqa-chromium-${packageVersion}`);
  if (existsSync(path.join(target, 'chromium'))) return target;
  const bin = path.join(packageRoot, 'bin');
  const partial = `${target}.partial-${process.pid}-${Date.now()}`;
  mkdirSync(partial, { recursive: true });
  try {
    await pipeline(
      createReadStream(path.join(bin, 'chromium.br')),
      createBrotliDecompress(),
      createWriteStream(path.join(partial, 'chromium'), { mode: 0o700 }),
    );
    // fonts (the package's own, so the page renders the same on a machine without any) and the
    // SwiftShader GL libraries, which Chromium loads from its own directory
    await pipeline(createReadStream(path.join(bin, 'fonts.tar.br')), createBrotliDecompress(), extract(partial));
    await pipeline(createReadStream(path.join(bin, 'swiftshader.tar.br')), createBrotliDecompress(), extract(partial));
    writeFileSync(
      path.join(partial, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
        `  <dir>${path.join(target, 'fonts')}</dir>\n  <dir>/usr/share/fonts</dir>\n` +
        `  <cachedir>${path.join(target, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
    );
    try {
      renameSync(partial, target);
    } catch (err) {
      // another process finished first: use its copy
      if (!existsSync(path.join(target, 'chromium'))) throw err;
    }
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  return target;
}

/** Directory holding the unpacked `chromium` binary (unpacked on first use). */
export function chromiumDir(): Promise<string> {
  unpacked ??= unpack().catch((err) => {
    unpacked = undefined;
    throw err;
  });
  return unpacked;
}

export interface OpenedPage {
  page: Page;
  /** Every URL the page (its frames, workers and WebSockets included) asked for on another origin. */
  foreignRequests: string[];
  close(): Promise<void>;
}

const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'about:']);

/**
 * Opens `url` in a fresh headless Chromium. Requests to any origin other than the page's own are
 * recorded in `foreignRequests` and aborted (so a test never reaches the network and the page
 * behaves as it would offline), except those of `alsoAllow`.
 */
export async function openPage(url: string, opts: { alsoAllow?: string[] } = {}): Promise<OpenedPage> {
  const dir = await chromiumDir();
  const origin = new URL(url).origin;
  // other origins the test runs itself on loopback (e.g. an identity provider the page is sent to)
  const allowed = new Set((opts.alsoAllow ?? []).map((u) => new URL(u).origin));
  const foreignRequests: string[] = [];
  const isForeign = (u: string): boolean => {
    try {
      const parsed = new URL(u);
      if (LOCAL_SCHEMES.has(parsed.protocol)) return false;
      // ws(s):// to our own host:port is the same server
      const asHttp = parsed.protocol === 'ws:' ? 'http:' : parsed.protocol === 'wss:' ? 'https:' : parsed.protocol;
      const at = `${asHttp}//${parsed.host}`;
      return at !== origin && !allowed.has(at);
    } catch {
      return true;
    }
  };
  const browser: Browser = await chromium.launch({
    executablePath: path.join(dir, 'chromium'),
    headless: true,
    args: [
      '--no-sandbox',
      '--no-zygote',
      '--disable-dev-shm-usage',
      '--use-gl=angle',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--font-render-hinting=none',
    ],
    env: { ...process.env, FONTCONFIG_FILE: path.join(dir, 'fonts.conf'), LD_LIBRARY_PATH: dir },
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, serviceWorkers: 'block' });
    await context.route('**/*', async (route) => {
      const u = route.request().url();
      if (isForeign(u)) {
        foreignRequests.push(u);
        await route.abort('blockedbyclient');
      } else {
        await route.fallback();
      }
    });
    await context.routeWebSocket(
      () => true,
      (ws) => {
        if (isForeign(ws.url())) {
          foreignRequests.push(ws.url());
          void ws.close({ code: 1008, reason: 'foreign origin' });
        } else {
          ws.connectToServer();
        }
      },
    );
    const page = await context.newPage();
    await page.goto(url);
    return {
      page,
      foreignRequests,
      close: () => browser.close(),
    };
  } catch (err) {
    await browser.close();
    throw err;
  }
}
