import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api } from '../support/http';
import { freePort, Proc, startPgProcess, startServerProcess } from '../support/processes';

jest.setTimeout(180_000);

describe('PostgreSQL restarts while the server runs (real processes)', () => {
  let dir: string;
  let pg: Proc & { url: string };
  let server: Proc & { baseUrl: string };
  let pgPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'docqa-fault-'));
    pgPort = await freePort();
    pg = await startPgProcess(dir, pgPort);
    server = await startServerProcess({
      DATABASE_URL: pg.url,
      BOOTSTRAP_SUPERADMIN_EMAIL: 'root@example.com',
      BOOTSTRAP_SUPERADMIN_PASSWORD: 'rootpassword',
    });
  });

  afterAll(async () => {
    await server?.kill('SIGTERM');
    await pg?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts PostgreSQL again on the same directory and port (afterAll stops it). */
  const restartPg = async () => {
    pg = await startPgProcess(dir, pgPort);
  };

  const login = () => api(server.baseUrl, 'POST', '/api/auth/login', { body: { email: 'root@example.com', password: 'rootpassword' } });

  it('fails cleanly while the database is down, then recovers without a server restart', async () => {
    const before = await login();
    expect(before.status).toBe(200);
    const token = before.body.accessToken as string;

    await pg.kill('SIGTERM');
    const started = Date.now();
    const down = await api(server.baseUrl, 'GET', '/api/auth/me', { token });
    expect(down.status).toBe(503);
    expect(down.body.error).toBe('database_unavailable');
    expect(down.text).not.toMatch(/\bat .*\.(js|ts):\d+/); // no stack trace
    expect(Date.now() - started).toBeLessThan(15_000);
    expect((await api(server.baseUrl, 'GET', '/readyz')).status).toBe(503);
    expect((await api(server.baseUrl, 'GET', '/healthz')).status).toBe(200);
    expect(server.child.exitCode).toBeNull(); // the server survived

    await restartPg();
    let recovered = false;
    for (let i = 0; i < 60 && !recovered; i++) {
      const res = await api(server.baseUrl, 'GET', '/api/auth/me', { token });
      recovered = res.status === 200;
      if (!recovered) await new Promise((r) => setTimeout(r, 250));
    }
    expect(recovered).toBe(true);
    expect((await login()).status).toBe(200);
    expect((await api(server.baseUrl, 'GET', '/readyz')).status).toBe(200);
  });
});
