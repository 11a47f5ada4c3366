import type { ChatMessage } from './openai-client';

/** One numbered piece of context: a document chunk or a web result. */
export interface ContextItem {
  /** Chunk id, or `web-N` for a web result. */
  id: string;
  documentId: string;
  documentName: string;
  pageNumber: number;
  text: string;
  url?: string;
}

export interface PriorTurn {
  role: 'user' | 'assistant';
  content: string;
}

/** Rough token count (≈ 4 characters per token); enough for budgets and for usage when the upstream sends none. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** How much of the conversation's history goes into the prompt. */
export const HISTORY_TOKEN_BUDGET = 2000;
/** Longest context a single chunk or web result may add. */
const MAX_ITEM_CHARS = 4000;

const BASE = [
  'You are DocQA, an assistant that answers questions using the numbered context below.',
  'Cite every statement that uses the context with the number of its source in square brackets, like [1] or [2][3].',
  'Cite only numbers that appear in the context. If the context does not contain the answer, say so plainly.',
].join(' ');
const DEEP =
  'This is a research question: give a thorough, well-structured answer, compare the sources where they differ, and note what remains uncertain.';

function contextBlock(items: ContextItem[]): string {
  // spec (issue 35): no passage matched, and the model is told so rather than left to guess
  if (!items.length)
    return "Context: none was found for this question: the project's documents hold nothing on it. Say so plainly, and cite nothing.";
  const parts = items.map((c, i) => {
    const where = c.url ? `${c.documentName} (${c.url})` : `${c.documentName}, page ${c.pageNumber}`;
    const text = c.text.length > MAX_ITEM_CHARS ? `${c.text.slice(0, MAX_ITEM_CHARS)}…` : c.text;
    return `[${i + 1}] ${where}\n${text.trim()}`;
  });
  return `Context:\n\n${parts.join('\n\n')}`;
}

/** The newest prior turns that fit the budget, oldest first. */
export function historyWithinBudget(turns: PriorTurn[], budget = HISTORY_TOKEN_BUDGET): PriorTurn[] {
  const kept: PriorTurn[] = [];
  let used = 0;
  for (let i = turns.length - 1; i >= 0; i--) {
    const cost = estimateTokens(turns[i].content) + 4;
    if (used + cost > budget) break;
    used += cost;
    kept.unshift(turns[i]);
  }
  return kept;
}

/**
 * The prompt: a system message (our rules, the project's instructions, the numbered context
 * [1]..[k]), then earlier turns of the conversation within the token budget, then the question.
 */
export function buildPrompt(input: {
  instructions: string;
  deep: boolean;
  context: ContextItem[];
  history: PriorTurn[];
  question: string;
}): ChatMessage[] {
  const system = [BASE];
  if (input.deep) system.push(DEEP);
  if (input.instructions.trim()) system.push(`Project instructions:\n${input.instructions.trim()}`);
  system.push(contextBlock(input.context));
  return [
    { role: 'system', content: system.join('\n\n') },
    ...historyWithinBudget(input.history.filter((t) => t.content.trim())),
    { role: 'user', content: input.question },
  ];
}

/** The `[n]` markers an answer really used (also `[1, 2]`), in ascending order, limited to 1..max. */
export function citedIndexes(answer: string, max: number): number[] {
  const seen = new Set<number>();
  for (const m of answer.matchAll(/\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]/g)) {
    for (const n of m[1].split(/[,;]/).map((s) => Number(s.trim()))) {
      if (n >= 1 && n <= max) seen.add(n);
    }
  }
  return [...seen].sort((a, b) => a - b);
}
