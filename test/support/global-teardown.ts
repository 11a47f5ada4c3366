import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const db = (globalThis as Record<string, unknown>).__DOCQA_PG__ as { stop(): Promise<void> } | undefined;
  if (db) await db.stop();
  if (process.env.TEST_PG_DIR) rmSync(process.env.TEST_PG_DIR, { recursive: true, force: true });
}
