import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import os from 'node:os';

/** A start-up refusal, as one line naming the variable, the cause and the fix (main prints it; no stack). */
export class PrivateDirError extends Error {}

const mode = (m: number) => '0' + (m & 0o777).toString(8);
const uid = () => os.userInfo().uid;

/**
 * DATA_DIR (passwords, the cluster when not root): created 0700; an existing one we own that others
 * may read or enter is tightened to 0700, with a warning. One owned by someone else is left alone
 * (we cannot change it; the embedded PostgreSQL then fails on its own files or works as configured).
 */
export function tightenDataDir(dir: string, warn: (msg: string) => void): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== uid() || (st.mode & 0o077) === 0) return;
  chmodSync(dir, 0o700);
  warn(`DATA_DIR ${dir} had mode ${mode(st.mode)}; tightened to 0700 (it holds the database password)`);
}

/**
 * UPLOAD_TMP_DIR (uploads in flight): must be a directory of ours, mode 0700 — not a symbolic link,
 * not another user's, not open to group or others, who could read uploads or plant files in it (the
 * default sits in the shared temp directory, where anyone may create it first). Created 0700 when
 * missing; otherwise refused with one line naming the variable and the fix.
 */
export function requirePrivateUploadDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const me = uid();
  const problem = st.isSymbolicLink()
    ? 'is a symbolic link'
    : !st.isDirectory()
      ? 'is not a directory'
      : st.uid !== me
        ? `is owned by uid ${st.uid}, not by this process (uid ${me})`
        : (st.mode & 0o077) !== 0
          ? `has mode ${mode(st.mode)}, open to group or others`
          : null;
  if (!problem) return;
  throw new PrivateDirError(
    `UPLOAD_TMP_DIR ${dir} ${problem}; it must be a directory owned by uid ${me} with mode 0700. ` +
      `Fix: remove it (it is re-created 0700), or set UPLOAD_TMP_DIR to a directory of your own with chmod 700`,
  );
}
