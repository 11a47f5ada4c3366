import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Actor } from '../src/access/actor';
import { Config, loadConfig } from '../src/config';
import { compose } from '../src/composition';
import { ROOT_DIR } from '../src/db/orm';
import { Project, User } from '../src/entities';
import { createLogger } from '../src/logger';
import type { Services } from '../src/services';
import { freePort } from '../src/util/net';

/** What the documents benchmarks run on: the real services over a real PostgreSQL. */
export interface DocsBenchEnv {
  config: Config;
  orm: MikroORM;
  services: Services;
  /** A project (and its admin owner) created for this run; removed again by close(). */
  newProject(name: string): Promise<Project>;
  close(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise a fresh embedded PostgreSQL in a temporary directory (removed
 * at the end). Migrations are applied; ingestion workers run in this process when `workers`.
 */
export async function openDocsBenchEnv(opts: { workers: boolean; env?: Record<string, string> }): Promise<DocsBenchEnv> {
  const tempDir = process.env.DATABASE_URL ? null : mkdtempSync(path.join(os.tmpdir(), 'docqa-bench-docs-'));
  const config = loadConfig({
    NODE_ENV: 'production',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    ENCRYPTION_KEY: 'bench-encryption-key-bench-encryption-key',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    ...(process.env.DATABASE_URL
      ? { DATABASE_URL: process.env.DATABASE_URL }
      : { DATA_DIR: tempDir!, EMBEDDED_PG_PORT: String(await freePort()) }),
    ...opts.env,
  });
  const logger = createLogger(config.logLevel);
  const c = await compose(config, { role: 'cli', overrides: { logger, poolMax: 10, workers: opts.workers } });
  await c.start();
  const { db, services } = c;
  const created: string[] = [];
  let owner: User | null = null;

  return {
    config,
    orm: db.orm,
    services,
    newProject: async (name) => {
      const em = db.orm.em.fork();
      owner ??= em.create(User, {
        email: `bench-docs-${Date.now()}@bench.example.com`,
        name: 'Documents bench',
        passwordHash: 'x',
        platformRole: 'admin',
        orgPosition: 'member',
        avatarColor: '#336699',
        status: 'active',
      });
      const project = em.create(Project, {
        name,
        owner: em.getReference(User, owner.id),
        createdBy: em.getReference(User, owner.id),
        isPrivate: true,
      });
      await em.flush();
      created.push(project.id);
      return project;
    },
    close: async () => {
      const em = db.orm.em.fork();
      for (const id of created) {
        // a shared DATABASE_URL gets its rows back as they were (chunks go with the project)
        await em.getConnection().execute('delete from projects where id = ?', [id]);
        await em.getConnection().execute('delete from term_stats where project_id = ?', [id]);
        await em.getConnection().execute('delete from project_index_stats where project_id = ?', [id]);
      }
      if (owner) await em.getConnection().execute('delete from users where id = ?', [owner.id]);
      await c.stop();
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    },
  };
}

/** The caller benchmarks act as. */
export const benchActor = (): Actor => Actor.system();

export const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] : NaN;
};
export const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** Writes bench/results/<name>.json. */
export function writeResult(name: string, result: unknown): string {
  const dir = path.join(ROOT_DIR, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  return file;
}

/** A markdown table of rows. */
export function table(head: string[], rows: Array<Array<string | number>>): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** Polls a document row until it is ready or failed. */
export async function waitReady(
  orm: MikroORM,
  documentId: string,
  timeoutMs = 600_000,
): Promise<{ status: string; error: string | null; page_count: number; chunk_count: number; updated_at: Date }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await orm.em
      .fork()
      .getConnection()
      .execute<Array<{ status: string; error: string | null; page_count: number; chunk_count: number; updated_at: Date }>>(
        'select status, error, page_count, chunk_count, updated_at from documents where id = ?',
        [documentId],
      );
    if (row && (row.status === 'ready' || row.status === 'failed')) return row;
    if (Date.now() > until) throw new Error(`document ${documentId} not done after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export { ROOT_DIR };
