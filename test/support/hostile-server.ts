import pg from 'pg';
import { uploadFiles, waitForDocument, type TestFile } from './documents';
import { probe, type ProbeResult } from './hostile';
import { api } from './http';
import { Proc, startServerProcess } from './processes';
import { createTestDatabase } from './test-db';

/** The real server process of a hostile-input suite: a signed-in superadmin, a project of its own, and SQL on its database. */
export interface HostileServer {
  server: Proc & { baseUrl: string };
  token: string;
  projectId: string;
  sql: pg.Client;
  close(): Promise<void>;
}

/**
 * Starts the server process on a database of its own (in-process ingestion workers, two parser
 * threads, retries a second apart, 8 MB uploads) with `env` added, signs in its superadmin and
 * creates the project `projectName`.
 */
export async function startHostileServer(projectName: string, env: Record<string, string> = {}): Promise<HostileServer> {
  const db = await createTestDatabase();
  const server = await startServerProcess({
    DATABASE_URL: db.url,
    BOOTSTRAP_SUPERADMIN_EMAIL: 'root@example.com',
    BOOTSTRAP_SUPERADMIN_PASSWORD: 'rootpassword',
    WORKER_CONCURRENCY: '2',
    INGEST_RETRY_DELAY_SECONDS: '1',
    MAX_UPLOAD_MB: '8',
    ...env,
  });
  const login = await api(server.baseUrl, 'POST', '/api/auth/login', { body: { email: 'root@example.com', password: 'rootpassword' } });
  const token = login.body.accessToken;
  const project = await api(server.baseUrl, 'POST', '/api/projects', { token, body: { name: projectName } });
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  return {
    server,
    token,
    projectId: project.body.project.id,
    sql,
    async close() {
      await sql.end();
      await server.kill('SIGTERM');
      await db.drop();
    },
  };
}

/** Uploads `files` in one request while a /healthz probe runs, and waits for every document to end. */
export async function ingestProbed(
  h: HostileServer,
  files: TestFile[],
  timeoutMs: number,
): Promise<{ status: number; docs: any[]; healthz: ProbeResult }> {
  const health = probe(`${h.server.baseUrl}/healthz`);
  const res = await uploadFiles(h.server.baseUrl, h.token, h.projectId, files);
  const docs =
    res.status === 202
      ? await Promise.all(res.body.documents.map((d: { id: string }) => waitForDocument(h.server.baseUrl, h.token, d.id, timeoutMs)))
      : [];
  return { status: res.status, docs, healthz: await health.stop() };
}
