// Chunk ids (UUIDs) of a vector index by row, and rows by id, in typed arrays: about 24 bytes a row.

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** Offsets in a canonical UUID (8-4-4-4-12) of its 16 bytes' hex pairs. */
const PAIRS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
/** Each hex digit's value by character code (-1: not one). */
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  NIBBLE['0123456789abcdef'.charCodeAt(i)] = i;
  NIBBLE['0123456789ABCDEF'.charCodeAt(i)] = i;
}
const DASH = 45;

/** Writes a UUID's 16 bytes at `out[o]`; false (nothing meaningful written) when `id` is not a UUID. */
function parseUuid(id: string, out: Uint8Array, o: number): boolean {
  if (
    id.length !== 36 ||
    id.charCodeAt(8) !== DASH ||
    id.charCodeAt(13) !== DASH ||
    id.charCodeAt(18) !== DASH ||
    id.charCodeAt(23) !== DASH
  )
    return false;
  for (let i = 0; i < 16; i++) {
    const hi = id.charCodeAt(PAIRS[i]);
    const lo = id.charCodeAt(PAIRS[i] + 1);
    const v = hi < 128 && lo < 128 ? (NIBBLE[hi] << 4) | NIBBLE[lo] : -1;
    if (v < 0) return false;
    out[o + i] = v;
  }
  return true;
}

/**
 * The chunk id of each row of an index, and the row of each id (issue 36: a million rows). A
 * `string[]` and a `Map<string, number>` cost about 150 bytes a row on the heap, and every major
 * garbage collection walks them; here each id is its 16 bytes in one array and the rows are found
 * through an open-addressing table of row numbers. Rows are only ever added; an id added again
 * (a chunk forgotten, then embedded again) maps to its new row.
 */
export class IdTable {
  private bytes = new Uint8Array(16 * 1024);
  /** Row + 1 of each slot's id (0: empty); its size a power of two, at most half full. */
  private slots = new Int32Array(2048);
  /** The id looked up (get). */
  private readonly probe = new Uint8Array(16);
  length = 0;

  /** Adds `id` as the next row; returns the row. */
  push(id: string): number {
    const row = this.length;
    if ((row + 1) * 16 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    if (!parseUuid(id, this.bytes, row * 16)) throw new Error(`not a UUID: ${id}`);
    this.length++;
    if (this.length * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(row);
    return row;
  }

  /** The row of `id`, or undefined. */
  get(id: string): number | undefined {
    const probe = this.probe;
    if (!parseUuid(id, probe, 0)) return undefined;
    const mask = this.slots.length - 1;
    for (let s = hashOf(probe, 0) & mask; ; s = (s + 1) & mask) {
      const r = this.slots[s] - 1;
      if (r < 0) return undefined;
      if (this.equals(r, probe)) return r;
    }
  }

  /** The id of `row` (canonical lower-case UUID). */
  id(row: number): string {
    const b = this.bytes;
    const o = row * 16;
    const h = (i: number) => HEX[b[o + i]];
    return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
  }

  private equals(row: number, probe: Uint8Array): boolean {
    const o = row * 16;
    for (let i = 0; i < 16; i++) if (this.bytes[o + i] !== probe[i]) return false;
    return true;
  }

  /** Puts `row` in its slot, or in the slot of an earlier row of the same id (the newer row wins). */
  private place(row: number): void {
    const mask = this.slots.length - 1;
    const key = this.bytes.subarray(row * 16, row * 16 + 16);
    for (let s = hashOf(this.bytes, row * 16) & mask; ; s = (s + 1) & mask) {
      const r = this.slots[s] - 1;
      if (r < 0 || this.equals(r, key)) {
        this.slots[s] = row + 1;
        return;
      }
    }
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    for (let r = 0; r < this.length; r++) this.place(r);
  }
}

/** Mixes the id's four 32-bit words (ids alike but in one word still spread). */
function hashOf(b: Uint8Array, o: number): number {
  let h = 0x811c9dc5;
  for (let w = 0; w < 16; w += 4) {
    const word = (b[o + w] << 24) | (b[o + w + 1] << 16) | (b[o + w + 2] << 8) | b[o + w + 3];
    h = Math.imul(h ^ word, 0x9e3779b1);
    h ^= h >>> 15;
  }
  return Math.imul(h, 0x85ebca6b) >>> 0;
}
