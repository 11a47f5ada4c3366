import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../support/processes';

jest.setTimeout(60_000);

/**
 * Issue 26 item 6: every test can run alone (`jest -t`) and in any order (`jest --randomize`). The
 * checker refuses a test that assigns a variable of its file or describe block: set-up belongs in
 * beforeAll/beforeEach or a fixture function of test/support/.
 */
const CHECKER = path.join(ROOT, 'scripts/check-test-isolation.mjs');
const FIXTURE = path.join(ROOT, 'test/fixtures/architecture/isolation');

/** Runs the checker; its exit code and what it printed. */
function check(...targets: string[]): { code: number; out: string } {
  try {
    return { code: 0, out: execFileSync(process.execPath, [CHECKER, ...targets], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' }) };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { code: err.status, out: err.stdout + err.stderr };
  }
}

it('no test of the suite assigns a variable declared outside its body', () => {
  const { code, out } = check();
  expect(out).toMatch(/^\d+ test file\(s\): no test assigns a variable declared outside its body$/m);
  expect(Number(/^(\d+) test file/m.exec(out)![1])).toBeGreaterThan(80);
  expect(code).toBe(0);
});

it('refuses each assignment a test makes to shared state, naming the file, line and variable', () => {
  const { code, out } = check(path.join(FIXTURE, 'shares-state.ts'));
  expect(code).toBe(1);
  const found = out
    .split('\n')
    .filter((l) => l.startsWith('test/'))
    .map((l) => /:(\d+):\d+ {2}(\w+) {2}assigned inside test/.exec(l)!.slice(1).join(' '));
  // a login in a test, a row, a counter (++, +=, in it.each, in a callback), destructuring, a test
  // chosen by a condition, a tagged it.each table
  expect(found).toEqual(['13 token', '26 created', '27 count', '31 count', '32 first', '32 second', '37 count', '50 last', '57 last']);
  expect(out).toContain('9 assignment(s) to variables declared outside a test body, in 1 file(s)');
});

it('accepts set-up in hooks and helpers, and a test assigning its own variables', () => {
  const { code, out } = check(path.join(FIXTURE, 'sets-up-in-hooks.ts'));
  expect(out).toContain('no test assigns a variable declared outside its body');
  expect(code).toBe(0);
});
