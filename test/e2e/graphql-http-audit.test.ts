import { serverAudits } from 'graphql-http';
import { createTestApp, TestApp } from '../support/test-app';

/** The GraphQL-over-HTTP reference audit (graphql-http) against the real server: every MUST and SHOULD. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('GraphQL over HTTP (graphql-http serverAudits)', () => {
  const audits = serverAudits({ url: () => `${t.baseUrl}/graphql`, fetchFn: fetch });
  // every audit: the MUSTs and SHOULDs, and the MAYs we choose (GET queries with URL-encoded variables, no GET mutations)
  const required = audits;

  it('has the audits to run', () => {
    expect(required.length).toBeGreaterThan(60);
  });

  it.each(required.map((a) => [a.name, a] as const))('%s', async (_name, audit) => {
    const result = await audit.fn();
    expect(
      result.status === 'ok'
        ? 'ok'
        : `${result.status}: ${result.reason} ${JSON.stringify('response' in result ? result.response.status : '')}`,
    ).toBe('ok');
  });
});
