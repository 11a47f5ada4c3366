/** What `within` answers when the promise did not settle in time. */
export const LATE = Symbol('late');

/** The promise's value, or LATE after `ms` (the promise goes on; a rejection that comes first is thrown). */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
