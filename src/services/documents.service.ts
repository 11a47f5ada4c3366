import { BaseService } from './context';

/** TODO(owner of this area): implement. */
export class DocumentsService extends BaseService {
  /** Starts the ingestion queue (and in-process workers when `workers`). */
  async start(_opts: { workers: boolean }): Promise<void> {}

  /** Stops workers; unfinished jobs are picked up again later. */
  async stop(): Promise<void> {}
}
