import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../support/processes';

jest.setTimeout(120_000);

const FIXTURE = path.join(ROOT, 'test/fixtures/architecture');
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

/** Runs a linter expected to fail; returns what it printed. */
function failingRun(cmd: string, args: string[], cwd: string): string {
  try {
    execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    const err = e as { stdout: string; stderr: string };
    return err.stdout + err.stderr;
  }
  throw new Error(`${cmd} ${args.join(' ')} passed on deliberate violations`);
}

describe('architecture rules fire on deliberate violations', () => {
  let cruise: string;
  beforeAll(() => {
    cruise = failingRun(bin('depcruise'), ['--config', path.join(ROOT, '.dependency-cruiser.cjs'), 'src'], FIXTURE);
  });

  it.each([
    ['transports-no-orm', 'src/transports/http/things.routes.ts → src/entities/thing.entity.ts'],
    ['services-no-transport', 'src/services/things.service.ts → node_modules/'],
    ['inner-layers-point-inward', 'src/presenters/thing.presenter.ts → src/services/things.service.ts'],
    ['no-circular', 'src/cycle/a.ts'],
    ['search-wing-one-door', 'src/services/reaches-into-search.ts → src/search/ranking.ts'],
    ['ingest-through-the-wing', 'src/ingest/writes-around-the-wing.ts → src/search/ranking.ts'],
    ['search-wing-below-services', 'src/search/asks-a-service.ts → src/services/things.service.ts'],
  ])('%s', (rule, edge) => {
    const line = cruise.split('\n').find((l) => l.includes(`error ${rule}:`) && l.includes(edge.split(' → ')[0]));
    expect(line).toBeDefined();
  });

  it.each([
    ['src/services/reads-env.ts', 'no-restricted-properties', 'src/config/'],
    ['src/cli/assembles-by-hand.ts', 'no-restricted-syntax', 'compose()'],
    ['src/transports/http/locals.ts', 'no-restricted-syntax', 'receive the services'],
    ['src/services/nullable-actor.ts', 'no-restricted-syntax', 'non-null Actor'],
    ['src/presenters/untyped.presenter.ts', 'explicit-function-return-type', 'Missing return type'],
    ['src/services/too-long.ts', 'max-lines', 'Maximum allowed is 300'],
    ['web/reads-server-source.ts', 'no-restricted-imports', 'web/lib/types.ts'],
  ])('eslint refuses %s (%s)', (file, rule, says) => {
    const out = failingRun(bin('eslint'), ['--no-ignore', path.join(FIXTURE, file)], ROOT);
    expect(out).toContain(rule);
    expect(out).toContain(says);
  });
});
