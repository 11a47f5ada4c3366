import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { OcrLimits } from '../limits';
import { IngestError, ParsedPage } from '../types';

/*
 * Optical character recognition with Tesseract compiled to WebAssembly (tesseract.js-core), driven
 * directly through its TessBaseAPI binding in the calling thread — a parser pool worker — so its
 * processor time is counted by the pool like any parser's (tesseract.js itself would start a
 * worker of its own). The engine is loaded once per thread and kept for the next pages.
 */

/** The parts of the Emscripten module and TessBaseAPI binding used here (the package ships no types). */
interface TessIterator {
  Empty(level: number): boolean;
  Next(level: number): boolean;
  IsAtBeginningOf(level: number): boolean;
  GetUTF8Text(level: number): string;
  Confidence(level: number): number;
  BoundingBox(level: number, left: number, top: number, right: number, bottom: number): boolean;
}
interface TessApi {
  Init(dataPath: string | null, languages: string, oem: number): number;
  SetVariable(name: string, value: string): boolean;
  SetImageFile(exifOrientation: number, angle: number): number;
  Recognize(monitor: null): number;
  GetIterator(): TessIterator;
  Clear(): void;
  End(): void;
}
interface TessModule {
  FS: { writeFile(file: string, data: Uint8Array): void; unlink(file: string): void };
  TessBaseAPI: new () => TessApi;
  _malloc(bytes: number): number;
  getValue(ptr: number, type: 'i32'): number;
  destroy(obj: object): void;
  [name: `_emscripten_enum_PageIteratorLevel_${string}`]: () => number;
}
type TessFactory = (opts: { TesseractProgress(percent: number): void }) => Promise<TessModule>;

/** The LSTM engine only (OEM 1): the bundled English data holds no legacy model. */
const OEM_LSTM_ONLY = 1;
/**
 * The bundled English: tessdata_best converted to integers (4.0.0_best_int, 2.9 MB gzipped) rather
 * than 4.0.0 (legacy and LSTM models, 10.9 MB): on the scans under test/fixtures/formats/scans both
 * read the same words at the same confidence (95–96) in the same processor time, and best_int
 * loads in 0.6 s against 1.0 s.
 */
const BUNDLED = { eng: () => path.join(path.dirname(require.resolve('@tesseract.js-data/eng')), '4.0.0_best_int', 'eng.traineddata.gz') };

/** A grayscale image, one byte per pixel, rows top to bottom. */
export interface GrayImage {
  data: Uint8Array;
  width: number;
  height: number;
  /** Pixels per inch, when known (Tesseract sizes its expectations of text by it). */
  dpi?: number;
}

/** What one page's recognition gives (a ParsedPage's OCR fields). */
export type OcrResult = Required<Pick<ParsedPage, 'text' | 'confidence' | 'boxes'>>;

/** A language's traineddata: OCR_DATA_PATH first (plain or gzipped), then the bundled English. */
function languageData(lang: string, dataPath: string | null): Uint8Array {
  const files = dataPath ? [`${lang}.traineddata`, `${lang}.traineddata.gz`].map((f) => path.join(dataPath, f)) : [];
  if (lang in BUNDLED) files.push(BUNDLED[lang as keyof typeof BUNDLED]());
  const file = files.find((f) => existsSync(f));
  if (!file) {
    const where = dataPath
      ? `OCR_DATA_PATH (${dataPath}) has no ${lang}.traineddata or ${lang}.traineddata.gz`
      : 'OCR_DATA_PATH is not set';
    throw new IngestError(`OCR language "${lang}" is not available: ${where}; only eng is bundled`);
  }
  const bytes = readFileSync(file);
  // gzip's magic number, whatever the file is called
  return bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
}

let core: Promise<TessModule> | null = null;
let engine: { key: string; api: TessApi } | null = null;
/** Four ints in the module's memory for BoundingBox's out-parameters (kept for the thread's life). */
let boxMemory: number | null = null;

/** The Emscripten module, instantiated once per thread (SIMD build: every Node this runs on has WebAssembly SIMD). */
function loadCore(): Promise<TessModule> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an Emscripten factory without types or ES module entry
  return (core ??= (require('tesseract.js-core/tesseract-core-simd-lstm') as TessFactory)({ TesseractProgress: () => undefined }));
}

/**
 * The thread's engine for `limits.languages`, initialised on first use and kept: loading English
 * costs about half a second, recognising a page one to three. Another language set re-initialises it.
 */
async function engineFor(limits: OcrLimits): Promise<{ tess: TessModule; api: TessApi }> {
  const tess = await loadCore();
  const key = `${limits.languages}\n${limits.dataPath ?? ''}`;
  if (engine?.key === key) return { tess, api: engine.api };
  engine?.api.End();
  engine = null;
  for (const lang of limits.languages.split('+')) tess.FS.writeFile(`/${lang}.traineddata`, languageData(lang, limits.dataPath));
  const api = new tess.TessBaseAPI();
  if (api.Init(null, limits.languages, OEM_LSTM_ONLY) !== 0) {
    api.End();
    throw new IngestError(
      `OCR languages "${limits.languages}" could not be loaded (is each traineddata an LSTM model of Tesseract 4 or later?)`,
    );
  }
  // the data has been read into the engine: the files need not stay in the module's memory
  for (const lang of limits.languages.split('+')) tess.FS.unlink(`/${lang}.traineddata`);
  engine = { key, api };
  return { tess, api };
}

/** Loads the engine now (a thread about to recognise pages), so a missing language fails before any page is read. */
export async function prepareOcr(limits: OcrLimits): Promise<void> {
  await engineFor(limits);
}

/**
 * Recognises one grayscale page in this thread. Text is laid out from Tesseract's blocks,
 * paragraphs and lines (a blank line between paragraphs, a line break between lines); `boxes` hold
 * each word's characters in `text` and its box as fractions of the image from its top-left corner;
 * `confidence` is the mean word confidence (0 for a page without words).
 */
export async function recognise(image: GrayImage, limits: OcrLimits): Promise<OcrResult> {
  const { tess, api } = await engineFor(limits);
  // PGM: the simplest format Leptonica reads, so the pixels go in without being encoded
  const header = Buffer.from(`P5\n${image.width} ${image.height}\n255\n`, 'latin1');
  const pgm = new Uint8Array(header.length + image.data.length);
  pgm.set(header, 0);
  pgm.set(image.data, header.length);
  // SetImageFile reads /input; orientation is already applied (1: as stored)
  tess.FS.writeFile('/input', pgm);
  try {
    if (api.SetImageFile(1, 0) === 1) throw new IngestError('the page image could not be handed to the OCR engine');
    if (image.dpi) api.SetVariable('user_defined_dpi', String(Math.round(Math.min(Math.max(image.dpi, 70), 2400))));
    if (api.Recognize(null) !== 0) throw new IngestError('OCR failed on the page');
    return readWords(tess, api, image.width, image.height);
  } finally {
    api.Clear();
    tess.FS.unlink('/input');
  }
}

const level = (tess: TessModule, name: 'BLOCK' | 'PARA' | 'TEXTLINE' | 'WORD'): number =>
  tess[`_emscripten_enum_PageIteratorLevel_RIL_${name}`]();
const round = (n: number): number => Math.round(n * 1e4) / 1e4;

/** Walks the recognised words in reading order, building the page's text, word boxes and mean confidence. */
function readWords(tess: TessModule, api: TessApi, width: number, height: number): OcrResult {
  const [block, para, line, word] = [level(tess, 'BLOCK'), level(tess, 'PARA'), level(tess, 'TEXTLINE'), level(tess, 'WORD')];
  const it = api.GetIterator();
  const box = (boxMemory ??= tess._malloc(16));
  const parts: string[] = [];
  const boxes: OcrResult['boxes'] = [];
  let length = 0;
  let confidence = 0;
  try {
    if (!it || it.Empty(word)) return { text: '', confidence: 0, boxes: [] };
    do {
      const text = it.GetUTF8Text(word).trim();
      if (!text) continue;
      if (length > 0) {
        const sep = it.IsAtBeginningOf(block) || it.IsAtBeginningOf(para) ? '\n\n' : it.IsAtBeginningOf(line) ? '\n' : ' ';
        parts.push(sep);
        length += sep.length;
      }
      it.BoundingBox(word, box, box + 4, box + 8, box + 12);
      const [left, top, right, bottom] = [0, 4, 8, 12].map((o) => tess.getValue(box + o, 'i32'));
      boxes.push({
        start: length,
        end: length + text.length,
        x: round(left / width),
        y: round(top / height),
        w: round((right - left) / width),
        h: round((bottom - top) / height),
      });
      parts.push(text);
      length += text.length;
      confidence += it.Confidence(word);
    } while (it.Next(word));
  } finally {
    if (it) tess.destroy(it);
  }
  return { text: parts.join(''), confidence: boxes.length ? Math.round((confidence / boxes.length) * 10) / 10 : 0, boxes };
}
