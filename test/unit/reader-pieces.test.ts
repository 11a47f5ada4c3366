import { piecesOf } from '../../web/lib/reader';

/** The reader view's cut of a page (web/lib/reader.ts): cited ranges marked, headings outside them. */
const page = (text: string, sections: Array<{ offset: number; title: string; level?: number }> = []) => ({
  pageNumber: 2,
  text,
  sections: sections.map((s) => ({ level: null, ...s })),
});

it('marks the cited range and keeps the headings around it', () => {
  const p = page('Storage\n\nKeep it dry.\n\nCare\n\nDescale monthly. Rinse twice.', [
    { offset: 0, title: 'Storage', level: 1 },
    { offset: 23, title: 'Care', level: 1 },
  ]);
  const at = p.text.indexOf('Descale');
  expect(piecesOf(p, [{ start: at, end: at + 'Descale monthly.'.length }])).toEqual([
    { text: 'Storage', kind: 'heading', level: 1 },
    { text: '\n\nKeep it dry.\n\n', kind: 'text', level: undefined },
    { text: 'Care', kind: 'heading', level: 1 },
    { text: '\n\n', kind: 'text', level: undefined },
    { text: 'Descale monthly.', kind: 'mark', level: undefined },
    { text: ' Rinse twice.', kind: 'text', level: undefined },
  ]);
});

it('leaves a heading inside the cited range in the mark, joins overlapping ranges, and clamps ranges to the page', () => {
  const p = page('Care\n\nDescale monthly.', [{ offset: 0, title: 'Care' }]);
  expect(
    piecesOf(p, [
      { start: 0, end: 8 },
      { start: 5, end: 999 },
    ]),
  ).toEqual([{ text: p.text, kind: 'mark', level: undefined }]);
  expect(piecesOf(p, [])).toEqual([
    { text: 'Care', kind: 'heading', level: null },
    { text: '\n\nDescale monthly.', kind: 'text', level: undefined },
  ]);
});

it("a passage across a page break is marked on each page by that page's location", () => {
  const end = page('Intro. The warranty lasts three years and');
  const start = end.text.indexOf('The warranty');
  expect(piecesOf(end, [{ start, end: end.text.length }]).filter((x) => x.kind === 'mark')).toEqual([
    { text: 'The warranty lasts three years and', kind: 'mark', level: undefined },
  ]);
  const next = { ...page('covers shipping both ways. Next topic.'), pageNumber: 3 };
  expect(piecesOf(next, [{ start: 0, end: 26 }])[0]).toEqual({ text: 'covers shipping both ways.', kind: 'mark', level: undefined });
});
