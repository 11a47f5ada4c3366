import { deflateSync } from 'node:zlib';

/*
 * Hostile inputs for OCR, generated (no test framework imports: bench/ uses them too).
 */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf: Buffer): number => {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/**
 * A pixel-flood PNG: a valid header declaring `side` × `side` grayscale pixels (50,000² = 2.5
 * gigapixels by default) and a few kilobytes of compressed zero rows — decoded, it would need
 * gigabytes; its header alone must fail it.
 */
export function pixelFloodPng(side = 50_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // grayscale
  // rows of zeros (filter byte + pixels) compress a thousandfold: the first 64 rows are enough to look real
  const rows = deflateSync(Buffer.alloc((side + 1) * 64), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', rows),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A scan of `pages` pages (5,000 by default): every page draws one shared 8 × 8 grayscale image
 * over the whole page and has no text layer, so every page needs OCR. About 100 bytes a page.
 */
export function manyPageScan(pages = 5000): Buffer {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body) + 2; // object numbers from 3 (1: catalog, 2: pages)
  const pixels = Buffer.alloc(64, 0x80).toString('latin1');
  const image = add(
    `<< /Type /XObject /Subtype /Image /Width 8 /Height 8 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 64 >>\nstream\n${pixels}\nendstream`,
  );
  const draw = 'q 612 0 0 792 0 0 cm /Im0 Do Q';
  const content = add(`<< /Length ${draw.length} >>\nstream\n${draw}\nendstream`);
  const kids: number[] = [];
  for (let i = 0; i < pages; i++)
    kids.push(
      add(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 ${image} 0 R >> >> /Contents ${content} 0 R >>`,
      ),
    );
  const all = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${pages} >>`,
    ...objects,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  all.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${all.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${all.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
