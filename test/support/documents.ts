import { api, ApiResponse } from './http';
import { checkResponse } from './openapi-validator';

export interface TestFile {
  name: string;
  content: Buffer | string;
  type?: string;
}

/** POST /api/projects/:projectId/documents as multipart (field `file`, one part per file; `fields` as text fields). */
export async function uploadFiles(
  baseUrl: string,
  token: string | undefined,
  projectId: string,
  files: TestFile[],
  fields: Record<string, string> = {},
): Promise<ApiResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const f of files) {
    const bytes = typeof f.content === 'string' ? Buffer.from(f.content) : f.content;
    form.append('file', new Blob([new Uint8Array(bytes)], { type: f.type ?? 'application/octet-stream' }), f.name);
  }
  const res = await fetch(`${baseUrl}/api/projects/${projectId}/documents`, {
    method: 'POST',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: form,
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  await checkResponse('POST', `/api/projects/${projectId}/documents`, res.status, res.headers.get('content-type'), body);
  return { status: res.status, body, headers: res.headers, text };
}

/** Polls GET /api/documents/:id until the document is ready or failed (or the time is up). */
export async function waitForDocument(baseUrl: string, token: string, id: string, timeoutMs = 30_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(baseUrl, 'GET', `/api/documents/${id}`, { token });
    const doc = res.body?.document;
    if (doc && (doc.status === 'ready' || doc.status === 'failed')) return doc;
    if (Date.now() > until) throw new Error(`document ${id} still ${doc?.status ?? res.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The one ingest fixture: uploads `files` to the project as `token`, expects 202, and waits until
 * every document is ready or failed; resolves to the documents as GET /documents/:id answers them.
 */
export async function ingestFiles(
  baseUrl: string,
  token: string,
  projectId: string,
  files: TestFile[],
  opts: { fields?: Record<string, string>; timeoutMs?: number } = {},
): Promise<any[]> {
  const res = await uploadFiles(baseUrl, token, projectId, files, opts.fields);
  if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${res.text.slice(0, 300)}`);
  const documents = (res.body as { documents: Array<{ id: string }> }).documents;
  return Promise.all(documents.map((d) => waitForDocument(baseUrl, token, d.id, opts.timeoutMs ?? 60_000)));
}
