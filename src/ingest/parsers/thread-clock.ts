import { readFileSync, readlinkSync } from 'node:fs';

/**
 * Per-thread processor time on Linux, so the parse limit counts the work a file causes and not
 * the time its thread (nice 10) waits while busier threads run. Elsewhere both return null and
 * the caller falls back to wall-clock time.
 */

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on every Linux architecture Node runs on). */
const TICKS_PER_SECOND = 100;

/** The calling thread's kernel thread id, or null where /proc/thread-self does not exist. */
export function ownThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/**
 * Processor time (user + system, in ms) a thread of this process has used, or null when it cannot
 * be read (the thread has ended, or no /proc). The name in parentheses may hold spaces, so the
 * fields are counted from the last ')': utime and stime are the 14th and 15th fields.
 */
export function threadCpuMs(tid: number): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}
