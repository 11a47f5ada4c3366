/**
 * A parser thread left holding work it cannot end (a PDF document pdf.js would not destroy) is
 * given up rather than reused: once its task's outcome is posted, parse-worker.ts keeps the task
 * open, the pool (which ends every task it has an outcome for) terminates the thread, and piscina
 * starts a fresh one. The memory pdf.js held goes with the thread.
 */
let spoiled = false;

/** Marks this thread as not to be reused. */
export function spoilThread(): void {
  spoiled = true;
}

/** Whether this thread must not be reused. */
export function threadSpoiled(): boolean {
  return spoiled;
}
