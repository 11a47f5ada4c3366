import { buildPrompt, citedIndexes, estimateTokens, historyWithinBudget } from '../../src/llm/prompt';
import { titleFrom } from '../../src/services/chat-store';

describe('citations: the [n] markers an answer really used', () => {
  it('finds single, repeated and grouped markers, in order, within range', () => {
    expect(citedIndexes('See [2] and [1][2], also [3, 1] and [4; 2].', 3)).toEqual([1, 2, 3]);
  });
  it('ignores markers beyond the sources and non-numeric brackets', () => {
    expect(citedIndexes('Nothing [0], [9], [a], [1a] or [ ].', 3)).toEqual([]);
  });
});

describe('conversation titles', () => {
  it('collapse whitespace and stay short, cut at a word', () => {
    expect(titleFrom('  What   is\nthe warranty?  ')).toBe('What is the warranty?');
    const t = titleFrom('How long does the warranty last for the Acme toaster, and what does it cover exactly?');
    expect(t).toBe('How long does the warranty last for the Acme toaster, and…');
    expect(t.length).toBeLessThanOrEqual(61);
  });
  it('a single very long word is cut hard', () => {
    expect(titleFrom('x'.repeat(100))).toBe(`${'x'.repeat(60)}…`);
  });
});

describe('prompt', () => {
  const context = [
    { id: 'c1', documentId: 'd1', documentName: 'manual.pdf', pageNumber: 2, text: 'Five-year warranty.' },
    { id: 'web-1', documentId: 'https://x.example', documentName: 'X', pageNumber: 1, text: 'Web text.', url: 'https://x.example' },
  ];

  it('system: rules, project instructions, numbered context; then history; then the question', () => {
    const msgs = buildPrompt({
      instructions: 'Be brief.',
      deep: false,
      context,
      history: [
        { role: 'user', content: 'earlier' },
        { role: 'assistant', content: 'reply' },
      ],
      question: 'now?',
    });
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(msgs[0].content).toContain('Project instructions:\nBe brief.');
    expect(msgs[0].content).toContain('[1] manual.pdf, page 2\nFive-year warranty.');
    expect(msgs[0].content).toContain('[2] X (https://x.example)\nWeb text.');
    expect(msgs[0].content).not.toMatch(/research question/);
    expect(msgs[3]).toEqual({ role: 'user', content: 'now?' });
  });

  it('deep mode asks for a research-style answer; no instructions → no instructions block', () => {
    const msgs = buildPrompt({ instructions: '  ', deep: true, context: [], history: [], question: 'q' });
    expect(msgs[0].content).toMatch(/research question/);
    expect(msgs[0].content).not.toContain('Project instructions');
    expect(msgs[0].content).toContain('none was found');
    expect(msgs[0].content).toContain("the project's documents hold nothing on it");
  });

  it('history keeps the newest turns within the token budget, oldest first, and drops empty ones', () => {
    const turns = Array.from<unknown, { role: 'user' | 'assistant'; content: string }>({ length: 10 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `${i}`.repeat(400),
    }));
    const kept = historyWithinBudget(turns, 3 * (estimateTokens('x'.repeat(400)) + 4));
    expect(kept.map((t) => t.content[0])).toEqual(['7', '8', '9']);
    const msgs = buildPrompt({ instructions: '', deep: false, context: [], history: [{ role: 'assistant', content: '' }], question: 'q' });
    expect(msgs).toHaveLength(2);
  });
});
