/**
 * Uploads as a queue: each file is its own request, a few at a time. A 429 puts the file back to
 * wait for the server's Retry-After (2 s when absent) and stops taking new files until then, so a
 * busy server is asked again no sooner than it said.
 */
import { ApiError, type Api } from './api';
import type { DocumentInfo } from './types';

export type UploadState = 'waiting' | 'uploading' | 'retrying' | 'done' | 'failed';

export interface UploadItem {
  key: number;
  name: string;
  size: number;
  state: UploadState;
  /** When a 429'd file is tried again (ms since the epoch). */
  retryAt?: number;
  error?: string;
  document?: DocumentInfo;
}

interface Entry extends UploadItem {
  file: File;
}

let nextKey = 1;

export class UploadQueue {
  private entries: Entry[] = [];
  private running = 0;
  private pausedUntil = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly api: Api,
    private readonly projectId: string,
    private readonly onChange: (items: UploadItem[]) => void,
    private readonly onUploaded: (doc: DocumentInfo) => void,
    private readonly concurrency = 2,
  ) {}

  add(files: File[]): void {
    for (const file of files) this.entries.push({ key: nextKey++, name: file.name, size: file.size, state: 'waiting', file });
    this.changed();
    this.pump();
  }

  /** Forgets finished entries. */
  clearFinished(): void {
    this.entries = this.entries.filter((e) => e.state !== 'done' && e.state !== 'failed');
    this.changed();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.entries = [];
  }

  private changed(): void {
    this.onChange(this.entries.map(({ file: _file, ...item }) => item));
  }

  private pump(): void {
    const now = Date.now();
    if (now < this.pausedUntil) return this.wake(this.pausedUntil - now);
    while (this.running < this.concurrency) {
      const next = this.entries.find((e) => e.state === 'waiting' || (e.state === 'retrying' && (e.retryAt ?? 0) <= now));
      if (!next) break;
      void this.send(next);
    }
    const retry = this.entries.filter((e) => e.state === 'retrying').map((e) => e.retryAt ?? now);
    if (retry.length) this.wake(Math.max(0, Math.min(...retry) - now));
  }

  private wake(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, ms + 20);
  }

  private async send(e: Entry): Promise<void> {
    this.running++;
    e.state = 'uploading';
    e.retryAt = undefined;
    this.changed();
    try {
      const body = new FormData();
      body.append('file', e.file, e.file.name);
      const doc = (await this.api.send('POST', `/projects/${encodeURIComponent(this.projectId)}/documents`, body)).documents[0];
      e.state = 'done';
      e.document = doc;
      this.onUploaded(doc);
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) {
        const wait = (err.retryAfter ?? 2) * 1000;
        e.state = 'retrying';
        e.retryAt = Date.now() + wait;
        this.pausedUntil = Math.max(this.pausedUntil, e.retryAt);
      } else {
        e.state = 'failed';
        e.error = err instanceof Error ? err.message : 'The upload failed';
      }
    } finally {
      this.running--;
      this.changed();
      this.pump();
    }
  }
}
