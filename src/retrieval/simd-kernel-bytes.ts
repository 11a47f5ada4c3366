// The SIMD dot-product kernel as WebAssembly bytes: its WAT, the byte encoder and KERNEL_BYTES.
/**
 * A WebAssembly SIMD128 dot-product kernel for exact vector scoring (src/retrieval/vector-scoring.ts),
 * encoded here byte by byte (no tool, nothing fetched at run time). It imports a SHARED memory, so
 * one compiled module serves the cached matrices (a shared WebAssembly.Memory whose buffer is the
 * SharedArrayBuffer the scoring threads read in place) and a thread's private scratch memory alike.
 * No imports: it runs in worker threads.
 *
 * The module, as WAT (byte offsets; `dims` floats per row):
 *
 *   (module
 *     (import "env" "memory" (memory 1 65536 shared))
 *     ;; out[r] = dot(q, m + r * dims) for r in [0, rows), f32
 *     (func (export "dots") (param $q i32) (param $m i32) (param $dims i32) (param $rows i32) (param $out i32)
 *       (local $r i32) (local $d i32) (local $p i32) (local $row i32) (local $e16 i32) (local $e4 i32)
 *       (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $s f32)
 *       (local.set $row (i32.shl (local.get $dims) (i32.const 2)))            ;; bytes per row
 *       (local.set $e16 (i32.shl (i32.and (local.get $dims) (i32.const -16)) (i32.const 2)))
 *       (local.set $e4 (i32.shl (i32.and (local.get $dims) (i32.const -4)) (i32.const 2)))
 *       (local.set $p (local.get $m))
 *       (block $done
 *         (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
 *         (loop $rows
 *           (local.set $a0 (v128.const i32x4 0 0 0 0)) ... $a1 $a2 $a3 likewise
 *           (local.set $d (i32.const 0))
 *           (block $b16 (br_if $b16 (i32.ge_u (local.get $d) (local.get $e16)))
 *             (loop $l16                                                   ;; 16 floats, 4 accumulators
 *               (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load offset=0 (p + d)) (v128.load offset=0 (q + d)))))
 *               ... $a1 offset=16, $a2 offset=32, $a3 offset=48
 *               (br_if $l16 (i32.lt_u (local.tee $d (i32.add (local.get $d) (i32.const 64))) (local.get $e16)))))
 *           (block $b4 (br_if $b4 (i32.ge_u (local.get $d) (local.get $e4)))
 *             (loop $l4                                                    ;; 4 floats at a time
 *               (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (p + d)) (v128.load (q + d)))))
 *               (br_if $l4 (i32.lt_u (local.tee $d (i32.add (local.get $d) (i32.const 16))) (local.get $e4)))))
 *           (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
 *           (local.set $s (f32.add (f32.add (f32x4.extract_lane 0 $a0) (f32x4.extract_lane 1 $a0))
 *                                  (f32.add (f32x4.extract_lane 2 $a0) (f32x4.extract_lane 3 $a0))))
 *           (block $bt (br_if $bt (i32.ge_u (local.get $d) (local.get $row)))
 *             (loop $lt                                                    ;; scalar tail (dims % 4)
 *               (local.set $s (f32.add (local.get $s) (f32.mul (f32.load (p + d)) (f32.load (q + d)))))
 *               (br_if $lt (i32.lt_u (local.tee $d (i32.add (local.get $d) (i32.const 4))) (local.get $row)))))
 *           (f32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2))) (local.get $s))
 *           (local.set $p (i32.add (local.get $p) (local.get $row)))
 *           (br_if $rows (i32.lt_u (local.tee $r (i32.add (local.get $r) (i32.const 1))) (local.get $rows))))))
 */

// locals: parameters 0–4, then i32 5–10, v128 11–14, f32 15
const Q = 0,
  M = 1,
  DIMS = 2,
  ROWS = 3,
  OUT = 4,
  R = 5,
  D = 6,
  P = 7,
  ROW = 8,
  E16 = 9,
  E4 = 10,
  A = [11, 12, 13, 14],
  S = 15;

const I32 = 0x7f,
  F32 = 0x7d,
  V128 = 0x7b;

/** Unsigned / signed LEB128. */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const get = (i: number) => [0x20, ...uleb(i)];
const set = (i: number) => [0x21, ...uleb(i)];
const tee = (i: number) => [0x22, ...uleb(i)];
const i32c = (n: number) => [0x41, ...sleb(n)];
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
const I32_ADD = 0x6a,
  I32_AND = 0x71,
  I32_SHL = 0x74,
  I32_LT_U = 0x49,
  I32_GE_U = 0x4f,
  F32_ADD = 0x92,
  F32_MUL = 0x94,
  BLOCK = [0x02, 0x40],
  LOOP = [0x03, 0x40],
  END = 0x0b,
  BR_IF = 0x0d;
/** v128.load / f32.load at (base + d + offset); memarg: alignment exponent, offset. */
const v128Load = (base: number, offset: number) => [...get(base), ...get(D), I32_ADD, ...simd(0x00, 4, ...uleb(offset))];
const f32Load = (base: number) => [...get(base), ...get(D), I32_ADD, 0x2a, 2, 0];
const F32X4_ADD = simd(0xe4),
  F32X4_MUL = simd(0xe6),
  ZERO = simd(0x0c, ...new Array<number>(16).fill(0));
const lane = (l: number) => simd(0x1f, l);
/** a += p[d + off..] * q[d + off..] (4 floats) */
const madd = (acc: number, off: number) => [...get(acc), ...v128Load(P, off), ...v128Load(Q, off), ...F32X4_MUL, ...F32X4_ADD, ...set(acc)];
/** d += step; continue the enclosing loop while d < end */
const next = (step: number, end: number) => [...get(D), ...i32c(step), I32_ADD, ...tee(D), ...get(end), I32_LT_U, BR_IF, 0];

const body = [
  // locals: 6 × i32, 4 × v128, 1 × f32
  3,
  6,
  I32,
  4,
  V128,
  1,
  F32,
  ...get(DIMS),
  ...i32c(2),
  I32_SHL,
  ...set(ROW),
  ...get(DIMS),
  ...i32c(-16),
  I32_AND,
  ...i32c(2),
  I32_SHL,
  ...set(E16),
  ...get(DIMS),
  ...i32c(-4),
  I32_AND,
  ...i32c(2),
  I32_SHL,
  ...set(E4),
  ...get(M),
  ...set(P),
  ...BLOCK,
  ...get(R),
  ...get(ROWS),
  I32_GE_U,
  BR_IF,
  0,
  ...LOOP,
  ...A.flatMap((a) => [...ZERO, ...set(a)]),
  ...i32c(0),
  ...set(D),
  ...BLOCK,
  ...get(D),
  ...get(E16),
  I32_GE_U,
  BR_IF,
  0,
  ...LOOP,
  ...A.flatMap((a, i) => madd(a, i * 16)),
  ...next(64, E16),
  END,
  END,
  ...BLOCK,
  ...get(D),
  ...get(E4),
  I32_GE_U,
  BR_IF,
  0,
  ...LOOP,
  ...madd(A[0], 0),
  ...next(16, E4),
  END,
  END,
  ...get(A[0]),
  ...get(A[1]),
  ...F32X4_ADD,
  ...get(A[2]),
  ...get(A[3]),
  ...F32X4_ADD,
  ...F32X4_ADD,
  ...tee(A[0]),
  ...lane(0),
  ...get(A[0]),
  ...lane(1),
  F32_ADD,
  ...get(A[0]),
  ...lane(2),
  ...get(A[0]),
  ...lane(3),
  F32_ADD,
  F32_ADD,
  ...set(S),
  ...BLOCK,
  ...get(D),
  ...get(ROW),
  I32_GE_U,
  BR_IF,
  0,
  ...LOOP,
  ...get(S),
  ...f32Load(P),
  ...f32Load(Q),
  F32_MUL,
  F32_ADD,
  ...set(S),
  ...next(4, ROW),
  END,
  END,
  ...get(OUT),
  ...get(R),
  ...i32c(2),
  I32_SHL,
  I32_ADD,
  ...get(S),
  0x38,
  2,
  0, // f32.store
  ...get(P),
  ...get(ROW),
  I32_ADD,
  ...set(P),
  ...get(R),
  ...i32c(1),
  I32_ADD,
  ...tee(R),
  ...get(ROWS),
  I32_LT_U,
  BR_IF,
  0,
  END,
  END,
  END, // function
];

const str = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
const section = (id: number, content: number[]) => [id, ...uleb(content.length), ...content];

/** The module's bytes (see the WAT above). */
export const KERNEL_BYTES = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00,
  // type 0: (i32 i32 i32 i32 i32) -> ()
  ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
  // import env.memory: shared, min 1, max 65536 pages
  ...section(2, [1, ...str('env'), ...str('memory'), 0x02, 0x03, ...uleb(1), ...uleb(65536)]),
  ...section(3, [1, 0]),
  ...section(7, [1, ...str('dots'), 0x00, 0]),
  ...section(10, [1, ...uleb(body.length), ...body]),
]);
