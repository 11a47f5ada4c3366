import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../../src/db/orm';
import type { TestFile } from './documents';
import { makeDocx } from './docx';
import { makePdf } from './pdf';

/**
 * The labelled retrieval evaluation set in test/fixtures/retrieval: real-looking company documents
 * in every supported format, and questions each labelled with the document, page and passage that
 * answers it. Used by the eval test (recall@5 ≥ 0.9) and by bench/retrieval.ts. No jest imports.
 */
export const EVAL_DIR = path.join(ROOT_DIR, 'test/fixtures/retrieval');

export interface EvalQuestion {
  question: string;
  /** The uploaded file name of the answering document. */
  document: string;
  /** The page the answer is on (as the document's parser numbers pages). */
  page: number;
  /** A passage of the answering text; a hit is relevant when its chunk contains it. */
  passage: string;
}

const read = (name: string) => readFileSync(path.join(EVAL_DIR, name), 'utf8');

/** Paragraphs and page breaks (form feeds) of a plain-text source. */
const pagesOf = (source: string) =>
  source.split('\f').map((page) =>
    page
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .filter(Boolean),
  );

/**
 * The evaluation documents as uploads. Markdown, HTML and text are stored as such; the PDF and
 * DOCX are built from their `.pdf.txt` / `.docx.txt` sources (form feed = page break; in the
 * DOCX source a leading "# " marks a heading) with the test generators.
 */
export async function evalDocuments(): Promise<TestFile[]> {
  const docx = pagesOf(read('support-sla.docx.txt')).flatMap((paras) =>
    paras.map((p, i) => ({
      text: p.replace(/^# /, ''),
      heading: p.startsWith('# ') ? (1 as const) : undefined,
      pageBreakAfter: i === paras.length - 1,
    })),
  );
  return [
    { name: 'employee-handbook.md', content: read('employee-handbook.md'), type: 'text/markdown' },
    { name: 'it-security-policy.html', content: read('it-security-policy.html'), type: 'text/html' },
    { name: 'travel-expense-policy.txt', content: read('travel-expense-policy.txt'), type: 'text/plain' },
    {
      name: 'router-manual.pdf',
      content: makePdf(pagesOf(read('router-manual.pdf.txt')).map((paragraphs) => ({ paragraphs }))),
      type: 'application/pdf',
    },
    {
      name: 'support-sla.docx',
      content: await makeDocx(docx),
      type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    },
  ];
}

export function evalQuestions(): EvalQuestion[] {
  return JSON.parse(read('questions.json')) as EvalQuestion[];
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** A hit answers the question when it comes from the labelled document and contains the passage. */
export function isRelevant(hit: { documentName: string; text: string }, q: EvalQuestion): boolean {
  return hit.documentName === q.document && norm(hit.text).includes(norm(q.passage));
}

export interface EvalScore {
  questions: number;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
  /** Questions without a relevant hit in the top 5. */
  misses: Array<{ question: string; top: string[] }>;
  /** Relevant hits whose pageNumber differs from the label. */
  wrongPages: Array<{ question: string; expected: number; got: number }>;
}

/** recall@1, recall@5 and MRR (over the returned hits, 0 when none is relevant). */
export function scoreEval(
  runs: Array<{ q: EvalQuestion; hits: Array<{ documentName: string; text: string; pageNumber: number }> }>,
): EvalScore {
  let r1 = 0;
  let r5 = 0;
  let rr = 0;
  const misses: EvalScore['misses'] = [];
  const wrongPages: EvalScore['wrongPages'] = [];
  for (const { q, hits } of runs) {
    const rank = hits.findIndex((h) => isRelevant(h, q));
    if (rank === 0) r1++;
    if (rank >= 0 && rank < 5) r5++;
    else
      misses.push({ question: q.question, top: hits.slice(0, 5).map((h) => `${h.documentName} p${h.pageNumber}: ${h.text.slice(0, 60)}`) });
    if (rank >= 0) {
      rr += 1 / (rank + 1);
      if (hits[rank].pageNumber !== q.page) wrongPages.push({ question: q.question, expected: q.page, got: hits[rank].pageNumber });
    }
  }
  const n = runs.length || 1;
  return { questions: runs.length, recallAt1: r1 / n, recallAt5: r5 / n, mrr: rr / n, misses, wrongPages };
}
