import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The suite's files are compiled one by one, without types (tsconfig.jest.json: isolatedModules),
 * which took each worker's first file from ~13 s to ~1 s. The types are checked here instead, once,
 * over everything tsconfig.json covers: src, test, bench and migrations.
 */
const ROOT = path.resolve(__dirname, '../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
jest.setTimeout(180_000);

const tsc = (...args: string[]): string => {
  try {
    return execFileSync(process.execPath, [TSC, '-p', 'tsconfig.json', '--noEmit', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (e) {
    const err = e as { stdout?: string; message: string };
    throw new Error(`tsc reported errors:\n${err.stdout ?? err.message}`, { cause: e });
  }
};

it('the whole project type-checks, tests included', () => {
  const files = tsc('--listFilesOnly')
    .split('\n')
    .map((f) => path.relative(ROOT, f.trim()));
  expect(files).toContain(path.join('test', 'unit', 'typecheck.test.ts'));
  expect(files).toContain(path.join('src', 'main.ts'));
  tsc();
});
