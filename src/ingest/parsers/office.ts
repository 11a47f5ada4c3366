import type { ParseLimits } from '../limits';
import { IngestError, PageSource } from '../types';

/** The formats read through officeparser. */
export type OfficeKind = 'xlsx' | 'ods' | 'pptx' | 'odp' | 'odt' | 'epub' | 'rtf';

/** Reads an office document, e-book or RTF file. Placeholder until the office reader lands. */
export async function parseOffice(kind: OfficeKind, _buf: Buffer, _limits: ParseLimits): Promise<PageSource> {
  throw new IngestError(`${kind.toUpperCase()} files are not read yet`);
}
