import { IngestError } from '../types';
import type { IngestFailureReason } from '../../observability/metrics';

/**
 * A failed ingestion attempt's reason as one of a fixed set of labels (the readable message,
 * which names files and parser details, stays in the document's `error` and the logs).
 */
export function ingestFailureReason(e: unknown, signal: AbortSignal): IngestFailureReason {
  if (e instanceof IngestError) {
    const m = e.message;
    if (/unsupported/i.test(m)) return 'unsupported';
    if (/no extractable text|empty/i.test(m)) return 'no_text';
    if (/password|encrypt/i.test(m)) return 'encrypted';
    return 'unreadable';
  }
  if (signal.aborted) {
    return signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError' ? 'timeout' : 'interrupted';
  }
  return 'error';
}
