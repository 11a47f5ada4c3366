import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Proc, ROOT, startProcess } from '../support/processes';

jest.setTimeout(120_000);

/** Issue 25 item 6 (a, b): DATA_DIR is tightened to 0700 at start; the upload temp directory must be ours and 0700. */
const isRoot = os.userInfo().uid === 0;
const dirs: string[] = [];
const procs: Proc[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'docqa-priv-'));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const p of procs) await p.kill();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** `node dist/src/main.js` with an upload directory; it must stop before reaching the (unreachable) database. */
function startWithUploadDir(uploadDir: string) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'dist/src/main.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      JWT_SECRET: 'process-secret-process-secret',
      ENCRYPTION_KEY: 'process-encryption-key-process',
      DATABASE_URL: 'postgres://nobody:nothing@127.0.0.1:1/none',
      UPLOAD_TMP_DIR: uploadDir,
      PORT: '0',
      HOST: '127.0.0.1',
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, lines: r.stderr.split('\n').filter(Boolean), stdout: r.stdout };
}

describe('UPLOAD_TMP_DIR', () => {
  (isRoot ? it : it.skip)("another user's directory: start-up fails with one line naming the variable and the fix", () => {
    const dir = path.join(tmp(), 'uploads');
    mkdirSync(dir, { mode: 0o700 });
    const nobody = Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, nobody, nobody);
    const r = startWithUploadDir(dir);
    expect(r.status).toBe(1);
    expect(r.lines).toEqual([
      `startup failed: UPLOAD_TMP_DIR ${dir} is owned by uid ${nobody}, not by this process (uid 0); it must be a directory owned by uid 0 with mode 0700. ` +
        'Fix: remove it (it is re-created 0700), or set UPLOAD_TMP_DIR to a directory of your own with chmod 700',
    ]);
    expect(statSync(dir).uid).toBe(nobody); // left as it was
  });

  it('a group- or world-writable directory of ours: start-up fails with that line too', () => {
    const dir = path.join(tmp(), 'uploads');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const r = startWithUploadDir(dir);
    expect(r.status).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(/^startup failed: UPLOAD_TMP_DIR \S+ has mode 0777, open to group or others; .* Fix: remove it/);
    chmodSync(dir, 0o770);
    expect(startWithUploadDir(dir).lines[0]).toContain(`UPLOAD_TMP_DIR ${dir} has mode 0770`);
  });

  it('a missing directory is created 0700 (the start then goes on to the database)', () => {
    const dir = path.join(tmp(), 'fresh');
    const r = startWithUploadDir(dir);
    expect(r.status).toBe(1); // the database is unreachable
    expect(r.lines.join('\n')).not.toContain('UPLOAD_TMP_DIR');
    expect(existsSync(dir)).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });
});

describe('DATA_DIR', () => {
  it('an existing 0755 DATA_DIR of ours is tightened to 0700 at start, with a warning', async () => {
    const dir = path.join(tmp(), 'data');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    const proc = await startProcess('dist/src/cli/embedded-pg.js', ['--data-dir', dir], {}, /ready postgres:\/\/\S+\n/);
    procs.push(proc);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(proc.output()).toContain(`warning: DATA_DIR ${dir} had mode 0755; tightened to 0700`);
    await proc.kill();
    // a second start finds nothing to tighten
    const again = await startProcess('dist/src/cli/embedded-pg.js', ['--data-dir', dir], {}, /ready postgres:\/\/\S+\n/);
    procs.push(again);
    expect(again.output()).not.toContain('warning');
  });
});
