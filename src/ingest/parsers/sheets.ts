import type { ParseLimits } from '../limits';
import { IngestError, PageSource } from '../types';

/** Reads a CSV or TSV file as one sheet. Placeholder until the spreadsheet reader lands. */
export function parseDelimited(kind: 'csv' | 'tsv', _buf: Buffer, _limits: ParseLimits): PageSource {
  throw new IngestError(`${kind.toUpperCase()} files are not read yet`);
}
