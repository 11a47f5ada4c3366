import { IngestError } from './types';

export type { OcrLimits, ParseLimits, PoolLimits } from '../config/limits';

/**
 * A document exceeded a configured limit. Like any IngestError it is not retried: the same bytes
 * exceed the same limit every time. The message names the limit.
 */
export class LimitError extends IngestError {
  constructor(message: string) {
    super(message);
    this.name = 'LimitError';
  }
}

export const megabytes = (bytes: number): string => `${Math.round(bytes / (1024 * 1024))} MB`;

/** Counts extracted text against `maxExpandedBytes` (characters, a close stand-in for bytes). */
export class TextBudget {
  private used = 0;
  constructor(private readonly max: number) {}
  add(chars: number): void {
    this.used += chars;
    if (this.used > this.max) throw new LimitError(`document expands to more than ${megabytes(this.max)} of text`);
  }
}
