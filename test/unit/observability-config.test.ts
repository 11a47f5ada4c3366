import { ConfigError, loadConfig } from '../../src/config';
import { BoundedLabel, OTHER } from '../../src/observability/metrics';
import { parseTraceparent } from '../../src/observability/request-context';

const base = { JWT_SECRET: 'x'.repeat(32), DATA_DIR: '/tmp/docqa-unit-config' };
const prod = { ...base, NODE_ENV: 'production' };

describe('metrics configuration', () => {
  it('is on outside production, on the main port without a token', () => {
    expect(loadConfig({ ...base, NODE_ENV: 'development' }).metrics).toEqual({ enabled: true, port: null, token: null });
  });

  it('is off in production unless METRICS_PORT or METRICS_TOKEN says where or how', () => {
    expect(loadConfig(prod).metrics.enabled).toBe(false);
    expect(loadConfig({ ...prod, METRICS_PORT: '9464' }).metrics).toEqual({ enabled: true, port: 9464, token: null });
    expect(loadConfig({ ...prod, METRICS_TOKEN: 'a-long-enough-token' }).metrics).toEqual({
      enabled: true,
      port: null,
      token: 'a-long-enough-token',
    });
  });

  it.each([
    [{ METRICS_PORT: 'abc' }, /METRICS_PORT must be an integer/],
    [{ METRICS_PORT: '70000' }, /METRICS_PORT must be between/],
    [{ METRICS_PORT: '3000', PORT: '3000' }, /METRICS_PORT must differ from PORT/],
    [{ METRICS_TOKEN: 'short' }, /METRICS_TOKEN must be at least 16 characters/],
    [{ API_DOCS: 'maybe' }, /API_DOCS must be true or false/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });

  it('turns the API reference on outside production and off in it, like the playground', () => {
    expect(loadConfig(base).apiDocs).toBe(true);
    expect(loadConfig(prod).apiDocs).toBe(false);
    expect(loadConfig({ ...prod, API_DOCS: 'true' }).apiDocs).toBe(true);
  });
});

describe('bounded labels', () => {
  it('keeps the first names up to the cap, then collapses new ones (and malformed ones) to other', () => {
    const l = new BoundedLabel(2, /^[a-z]+$/);
    expect([l.of('a'), l.of('b'), l.of('c'), l.of('a'), l.of('B!')]).toEqual(['a', 'b', OTHER, 'a', OTHER]);
  });
});

describe('traceparent', () => {
  const id = '4bf92f3577b34da6a3ce929d0e0e4736';
  it('accepts the W3C format', () => {
    expect(parseTraceparent(`00-${id}-00f067aa0ba902b7-01`)).toEqual({ traceId: id, parentId: '00f067aa0ba902b7', flags: '01' });
    // a future version may append fields
    expect(parseTraceparent(`01-${id}-00f067aa0ba902b7-00-extra`)).toEqual(expect.objectContaining({ traceId: id }));
  });
  it.each([
    `00-${id}-00f067aa0ba902b7-01-extra`, // version 00 has exactly four fields
    `ff-${id}-00f067aa0ba902b7-01`,
    `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    `00-${id}-${'0'.repeat(16)}-01`,
    `00-${id.toUpperCase()}-00f067aa0ba902b7-01`,
    `00-${id}-00f067aa0ba902b7`,
    'garbage',
    `00-${id}-00f067aa0ba902b7-01${'-x'.repeat(300)}`,
  ])('refuses %s', (h) => {
    expect(parseTraceparent(h)).toBeNull();
  });
});
