import yauzl from 'yauzl';
import { LimitError, megabytes, ParseLimits } from '../limits';
import { IngestError } from '../types';

/**
 * Checks a zip (DOCX) before anything expands it whole: the entry count and the declared
 * uncompressed sizes from the central directory, then the actual sizes, by inflating each entry
 * as a stream that stops as soon as the running total passes the cap (yauzl also fails an entry
 * whose real size differs from its declared one). A zip bomb is refused having cost at most
 * `maxExpandedBytes` of inflation and none of memory.
 */
export async function checkZip(buf: Buffer, limits: Pick<ParseLimits, 'maxExpandedBytes' | 'maxZipEntries'>, what = 'DOCX'): Promise<void> {
  const tooBig = () => new LimitError(`document expands to more than ${megabytes(limits.maxExpandedBytes)}`);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(buf, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (err, z) =>
      err ? reject(invalid(err, what)) : resolve(z),
    ),
  );
  if (zip.entryCount > limits.maxZipEntries) {
    zip.close();
    throw new LimitError(`the ${what} holds more than ${limits.maxZipEntries} files`);
  }
  let declared = 0;
  let actual = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err: Error) => reject(invalid(err, what)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        declared += entry.uncompressedSize;
        if (declared > limits.maxExpandedBytes) return reject(tooBig());
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(invalid(err ?? new Error('unreadable entry'), what));
          stream.on('data', (chunk: Buffer) => {
            actual += chunk.length;
            if (actual > limits.maxExpandedBytes) {
              stream.destroy();
              reject(tooBig());
            }
          });
          stream.on('error', (e) => reject(invalid(e, what)));
          stream.on('end', () => zip.readEntry());
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

function invalid(err: Error, what: string): IngestError {
  return new IngestError(`not a valid ${what} file (${err.message.split('\n')[0]})`);
}
