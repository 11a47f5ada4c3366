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

/** A grayscale page image for imagePdf: `pixels` one byte a pixel, drawn over the whole page at `dpi`. */
export interface ScanPage {
  width: number;
  height: number;
  pixels: Buffer;
  dpi: number;
}

/**
 * An image-only PDF (what a scanner makes): each page one Flate-compressed grayscale image over the
 * whole page, no text layer. Pages given the same image object share it (`shared` of manyPageScan).
 */
export function imagePdf(pages: ScanPage[], pageCount = pages.length): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    length += buf.length;
  };
  const object = (n: number, head: string, stream?: Buffer) => {
    offsets[n] = length;
    push(`${n} 0 obj\n${head}\n`);
    if (stream) {
      push('stream\n');
      push(stream);
      push('\nendstream\n');
    }
    push('endobj\n');
  };
  push('%PDF-1.4\n');
  // objects: 1 catalog, 2 pages, then per distinct image: image, content; then the pages
  const images = pages.map((p, i) => ({ ...p, image: 3 + 2 * i, content: 4 + 2 * i }));
  const firstPage = 3 + 2 * images.length;
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  const kids = Array.from({ length: pageCount }, (_, i) => `${firstPage + i} 0 R`).join(' ');
  object(2, `<< /Type /Pages /Kids [${kids}] /Count ${pageCount} >>`);
  for (const im of images) {
    const data = deflateSync(im.pixels);
    object(
      im.image,
      `<< /Type /XObject /Subtype /Image /Width ${im.width} /Height ${im.height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>`,
      data,
    );
    const [w, h] = [(im.width * 72) / im.dpi, (im.height * 72) / im.dpi].map((v) => Math.round(v * 100) / 100);
    const draw = Buffer.from(`q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`, 'latin1');
    object(im.content, `<< /Length ${draw.length} >>`, draw);
  }
  for (let i = 0; i < pageCount; i++) {
    const im = images[i % images.length];
    const [w, h] = [(im.width * 72) / im.dpi, (im.height * 72) / im.dpi].map((v) => Math.round(v * 100) / 100);
    object(
      firstPage + i,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${im.image} 0 R >> >> /Contents ${im.content} 0 R >>`,
    );
  }
  const xref = length;
  const count = firstPage + pageCount;
  push(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (let n = 1; n < count; n++) push(`${String(offsets[n]).padStart(10, '0')} 00000 n \n`);
  push(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/**
 * A scan of `pages` pages (5,000 by default): every page draws one shared 8 × 8 grayscale image
 * over the whole (letter-size) page and has no text layer, so every page needs OCR. About 150
 * bytes a page.
 */
export function manyPageScan(pages = 5000): Buffer {
  return imagePdf([{ width: 8, height: 8, pixels: Buffer.alloc(64, 0x80), dpi: 8 / 8.5 }], pages);
}
