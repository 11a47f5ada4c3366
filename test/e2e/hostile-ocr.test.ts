import { readFileSync } from 'node:fs';
import path from 'node:path';
import { manyPageScan, pixelFloodPng } from '../support/hostile-ocr';
import { HostileServer, ingestProbed, startHostileServer } from '../support/hostile-server';
import { api } from '../support/http';

jest.setTimeout(240_000);

/**
 * Hostile inputs for OCR against the real server process (in-process ingestion workers, two
 * parser threads): a pixel-flood PNG and a 5,000-page scan each fail with the limit they hit
 * named, at once and not retried, beside an ordinary scan that is read; /healthz keeps answering
 * throughout (a probe runs the whole time).
 */
describe('hostile OCR inputs', () => {
  let h: HostileServer;

  beforeAll(async () => {
    h = await startHostileServer('Hostile OCR');
  });

  afterAll(async () => h?.close());

  it('a pixel-flood PNG and a 5,000-page scan fail with their named limits while /healthz keeps answering', async () => {
    const cases = [
      { name: 'flood.png', type: 'image/png', content: pixelFloodPng(), status: 'failed', error: /more than OCR_MAX_PIXELS \(40000000\)/ },
      {
        name: 'archive-scan.pdf',
        type: 'application/pdf',
        content: manyPageScan(5000),
        status: 'failed',
        error: /more than 500 pages that need OCR, the limit set by OCR_MAX_PAGES/,
      },
      {
        name: 'notice.png',
        type: 'image/png',
        content: readFileSync(path.resolve(__dirname, '../fixtures/formats/scans/notice.png')),
        status: 'ready',
        error: null,
      },
    ];
    const { server, token, projectId, sql } = h;
    const started = Date.now();
    const { status, docs, healthz } = await ingestProbed(h, cases, 200_000);
    expect(status).toBe(202);
    const elapsed = Date.now() - started;
    for (const [i, c] of cases.entries()) {
      expect({ name: c.name, status: docs[i].status }).toEqual({ name: c.name, status: c.status });
      if (c.error) expect({ name: c.name, error: docs[i].error }).toEqual({ name: c.name, error: expect.stringMatching(c.error) });
      else expect(docs[i].error).toBeNull();
    }
    expect(docs[2].extraction).toMatchObject({ method: 'ocr', ocrPages: 1 });
    // a limit is the file's doing: the same bytes fail the same way, so no retry
    const { rows } = await sql.query('select name, attempts from documents where project_id = $1', [projectId]);
    for (const row of rows) expect({ name: row.name, attempts: row.attempts }).toEqual({ name: row.name, attempts: 1 });
    process.stdout.write(`hostile OCR: ${JSON.stringify({ elapsed, healthz, outcomes: docs.map((d) => [d.name, d.status, d.error]) })}\n`);
    // the scan fails in seconds (pages counted before any is recognised), not after hours
    expect(elapsed).toBeLessThan(120_000);
    expect(healthz.failures).toBe(0);
    expect(healthz.count).toBeGreaterThan(50);
    // the p99 target is the bench's (bench/ocr.ts, on a quiet machine); here: never stopped answering
    expect(healthz.max).toBeLessThan(5000);
    expect((await api(server.baseUrl, 'GET', `/api/projects/${projectId}/documents`, { token })).status).toBe(200);
  });
});
