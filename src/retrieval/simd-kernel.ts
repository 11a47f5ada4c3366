// The JavaScript side of the SIMD kernel (its bytes: simd-kernel-bytes.ts): compiling, instances over shared memories, matrices with scratch slots.
import { KERNEL_BYTES } from './simd-kernel-bytes';

/** Largest memory the kernel can address (wasm32: 65,536 pages of 64 KiB). */
export const KERNEL_MAX_BYTES = 65536 * 65536;
export const WASM_PAGE = 65536;

/**
 * The few WebAssembly APIs used, typed here: the project's TypeScript libraries (ES2022 and Node 20's
 * types) declare none.
 */
export interface WasmMemory {
  /** A SharedArrayBuffer: every memory here is shared. */
  readonly buffer: SharedArrayBuffer;
}
type WasmModule = object;
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum: number; shared: true }) => WasmMemory;
}
const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/** A shared memory of `pages` 64 KiB pages (fixed size). */
export const sharedMemory = (pages: number): WasmMemory => new wasmApi!.Memory({ initial: pages, maximum: pages, shared: true });

let compiled: WasmModule | null | undefined;

/** The compiled kernel, or null where WebAssembly SIMD (or shared memory) is unavailable. */
export function kernelModule(): WasmModule | null {
  if (compiled !== undefined) return compiled;
  try {
    compiled =
      wasmApi !== undefined && typeof SharedArrayBuffer === 'function' && wasmApi.validate(KERNEL_BYTES)
        ? new wasmApi.Module(KERNEL_BYTES)
        : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

export type Dots = (q: number, m: number, dims: number, rows: number, out: number) => void;

/** The kernel over `memory` (a shared WebAssembly.Memory). */
export function kernelOver(memory: WasmMemory): Dots | null {
  const mod = kernelModule();
  if (mod === null) return null;
  return new wasmApi!.Instance(mod, { env: { memory } }).exports.dots as Dots;
}

/** Rows scored per kernel call (the scores of one call fill a thread's output slot). */
export const BLOCK_ROWS = 1024;

/**
 * A matrix in a shared WebAssembly.Memory, read in place by the kernel. Past the matrix's capacity
 * lies the scratch area: `slots` lock words (Int32, 0 = free), then one slot per scoring thread,
 * each holding a copy of the query and BLOCK_ROWS f32 scores. A thread claims a free slot for a task
 * (Atomics.compareExchange) and releases it after, so concurrent tasks never share scratch space.
 */
export interface WasmMatrix {
  memory: WasmMemory;
  /** Byte offset of the scratch area (the lock words). */
  scratch: number;
  slots: number;
}

const roundUp = (n: number, to: number) => Math.ceil(n / to) * to;

/** Bytes of one scratch slot for `dims`-float queries. */
export const slotBytes = (dims: number) => roundUp(dims * 4, 64) + BLOCK_ROWS * 4;

/** Byte offset of slot `i`: its query, then its scores. */
export const slotOffset = (m: WasmMatrix, dims: number, i: number) => m.scratch + roundUp(m.slots * 4, 64) + i * slotBytes(dims);

/**
 * A zeroed matrix of `floats` floats (`dims` per row) in a shared WebAssembly.Memory with `slots`
 * scratch slots, or null where the kernel is unavailable or the memory would exceed wasm32's 4 GiB
 * (the caller then uses a plain SharedArrayBuffer and the JavaScript kernel).
 */
export function allocateWasmMatrix(floats: number, dims: number, slots: number): { matrix: Float32Array; wasm: WasmMatrix } | null {
  if (kernelModule() === null || dims <= 0) return null;
  const scratch = roundUp(Math.max(1, floats) * 4, 64);
  const bytes = scratch + roundUp(slots * 4, 64) + slots * slotBytes(dims);
  if (bytes > KERNEL_MAX_BYTES) return null;
  const pages = Math.ceil(bytes / WASM_PAGE);
  let memory: WasmMemory;
  try {
    memory = sharedMemory(pages);
  } catch {
    return null;
  }
  return { matrix: new Float32Array(memory.buffer, 0, Math.max(1, floats)), wasm: { memory, scratch, slots } };
}
