import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config';
import { ParserPool } from '../src/ingest/parsers/pool';
import type { DocumentKind } from '../src/ingest/types';
import { round, writeResult } from './docs-env';
import { ROOT } from './lib/env';

/**
 * OCR quality guard: every scan and image fixture (test/fixtures/formats/scans and the first-day
 * scanned contract and notice photo) read through the real parser pool (two threads), and its
 * recognised words compared with the words of the text it was made from (SOURCES.md and
 * first-day/src/make.sh say which). Agreement is order-aware: the longest common subsequence of the
 * two word lists, as a share of the source's words (recall) and of the recognised words
 * (precision). The recognised text is kept in the result file, to compare one run with another.
 *
 *   node dist/bench/ocr-quality.js [--label NAME]    # writes bench/results/ocr-quality[-NAME].json
 */
const SCANS = path.join(ROOT, 'test/fixtures/formats/scans');
const FIRST = path.join(ROOT, 'test/fixtures/formats/first-day');

interface Case {
  file: string;
  kind: DocumentKind;
  /** The source texts of the recognised pages, in page order. */
  sources: string[];
  /** Only these pages are compared (a mixed PDF's text page is not OCR). */
  pages?: number[];
  /** The image shows only part of its source (a crop): recall is not meaningful, precision is. */
  crop?: boolean;
}

const CASES: Case[] = [
  { file: `${SCANS}/scanned-contract.pdf`, kind: 'pdf', sources: [`${SCANS}/src/contract.md`] },
  { file: `${SCANS}/mixed.pdf`, kind: 'pdf', sources: [`${SCANS}/src/mixed-scan.txt`], pages: [2] },
  { file: `${SCANS}/notice.png`, kind: 'png', sources: [`${SCANS}/src/notice.txt`] },
  { file: `${SCANS}/visitor-policy.tiff`, kind: 'tiff', sources: [`${SCANS}/src/tiff-page1.txt`, `${SCANS}/src/tiff-page2.txt`] },
  { file: `${SCANS}/parking.jpg`, kind: 'jpeg', sources: [`${SCANS}/src/jpeg.txt`] },
  { file: `${SCANS}/fire-drill.webp`, kind: 'webp', sources: [`${SCANS}/src/webp.txt`] },
  { file: `${SCANS}/library-hours.gif`, kind: 'gif', sources: [`${SCANS}/src/gif.txt`] },
  { file: `${FIRST}/contract-scan.pdf`, kind: 'pdf', sources: [`${FIRST}/src/contract.md`] },
  { file: `${FIRST}/notice-photo.png`, kind: 'png', sources: [`${FIRST}/src/notice.md`], crop: true },
];

/** Words, lower-cased, without punctuation or Markdown (`\newpage`, raw OpenXML page breaks, `#`, `**`). */
export const words = (text: string): string[] =>
  text
    .replace(/\\newpage|```\{=openxml\}[\s\S]*?```/g, ' ')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** Length of the longest common subsequence of two word lists. */
export function lcs(a: string[], b: string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const cur = new Array<number>(b.length + 1).fill(0);
    for (let j = 0; j < b.length; j++) cur[j + 1] = x === b[j] ? prev[j] + 1 : Math.max(prev[j + 1], cur[j]);
    prev = cur;
  }
  return prev[b.length];
}

interface Row {
  file: string;
  pages: number;
  sourceWords: number;
  readWords: number;
  /** Words in both, in the same order (longest common subsequence). */
  common: number;
  recall: number | null;
  precision: number;
  confidence: Array<number | null>;
  seconds: number;
  text: string[];
}

const arg = (name: string): string | null => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : null;
};

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, JWT_SECRET: 'bench-secret-bench-secret', PARSER_THREADS: '2' });
  const pool = new ParserPool(config.parseLimits, config.parserPool);
  const rows: Row[] = [];
  const t0 = performance.now();
  try {
    for (const c of CASES) {
      const started = performance.now();
      const pages = (await pool.parse(c.kind, readFileSync(c.file))).filter((p) => !c.pages || c.pages.includes(p.pageNumber));
      const text = pages.map((p) => p.text).join('\n\n');
      const source = words(c.sources.map((f) => readFileSync(f, 'utf8')).join('\n'));
      const read = words(text);
      const common = lcs(source, read);
      rows.push({
        file: path.relative(ROOT, c.file),
        pages: pages.length,
        sourceWords: source.length,
        readWords: read.length,
        common,
        recall: c.crop ? null : round(common / source.length, 4),
        precision: round(common / Math.max(1, read.length), 4),
        confidence: pages.map((p) => p.confidence ?? null),
        seconds: round((performance.now() - started) / 1000, 1),
        text: pages.map((p) => p.text),
      });
    }
  } finally {
    await pool.destroy();
  }
  const total = (key: 'sourceWords' | 'readWords') => rows.reduce((n, r) => n + r[key], 0);
  // over every fixture, each weighted by its words: recall leaves out the crop
  const sum = (f: (r: Row) => number, which = rows) => which.reduce((n, r) => n + f(r), 0);
  const whole = rows.filter((r) => r.recall !== null);
  const summary = {
    recall: round(sum((r) => r.common, whole) / sum((r) => r.sourceWords, whole), 4),
    precision: round(sum((r) => r.common) / sum((r) => r.readWords), 4),
  };
  const label = arg('label');
  const file = writeResult(label ? `ocr-quality-${label}` : 'ocr-quality', {
    measuredAt: new Date().toISOString(),
    seconds: round((performance.now() - t0) / 1000, 1),
    summary,
    rows,
  });
  for (const r of rows)
    process.stdout.write(
      `${String(r.file).padEnd(52)} recall ${r.recall ?? '(crop)'}  precision ${r.precision}  conf ${JSON.stringify(r.confidence)}  ${r.seconds} s\n`,
    );
  process.stdout.write(
    `${total('sourceWords')} source words, ${total('readWords')} read: recall ${summary.recall}, precision ${summary.precision}\n${file}\n`,
  );
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
