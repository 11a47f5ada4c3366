import 'reflect-metadata';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { corpusQuestions, EVAL_CORPUS_DIR, pagesWith, parseCorpus, QUESTION_FILES, verifyLabels } from '../test/support/eval/corpus';

/**
 * Helps whoever writes labels for the evaluation corpus, with our own parsers (no database):
 *
 *   node dist/bench/eval-labels.js pages <document>        # the document's pages as we parse them
 *   node dist/bench/eval-labels.js find <phrase>            # documents and pages holding a phrase
 *   node dist/bench/eval-labels.js check                   # every label (what the test checks)
 *   node dist/bench/eval-labels.js fill-pages              # adds the page to labels that lack one when the phrase is on exactly one page (each split to its own file)
 */
async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  const parsed = await parseCorpus();
  if (cmd === 'pages') {
    const doc = parsed.find((d) => d.name === rest[0]);
    if (!doc) throw new Error(`no document ${rest[0]}`);
    for (const p of doc.pages) process.stdout.write(`\n===== page ${p.pageNumber} =====\n${p.text}\n`);
  } else if (cmd === 'find') {
    for (const d of parsed) {
      const pages = pagesWith(d, rest.join(' '));
      if (pages.length) process.stdout.write(`${d.name}: pages ${pages.join(', ')}\n`);
    }
  } else if (cmd === 'check') {
    const failures = verifyLabels(parsed, corpusQuestions());
    for (const f of failures) process.stdout.write(`${f.id}: ${f.problem}\n`);
    process.stdout.write(`${corpusQuestions().length} questions, ${failures.length} failing labels\n`);
    if (failures.length) process.exitCode = 1;
  } else if (cmd === 'fill-pages') {
    const questions = corpusQuestions();
    for (const q of questions) {
      const doc = parsed.find((d) => d.name === q.document);
      if (!doc || q.page !== undefined || doc.kind !== 'pdf') continue;
      const pages = pagesWith(doc, q.answer);
      if (pages.length === 1) q.page = pages[0];
      else process.stdout.write(`${q.id}: "${q.answer}" on pages [${pages.join(', ')}] of ${q.document}\n`);
    }
    // each split goes back to its own file (QUESTION_FILES), in the order it was read
    for (const { file, split } of QUESTION_FILES) {
      const ordered = questions
        .filter((q) => q.split === split)
        .map(({ id, question, document, page, answer, style, lang, origin }) => ({
          id,
          question,
          document,
          ...(page !== undefined ? { page } : {}),
          answer,
          style,
          lang,
          ...(origin ? { origin } : {}),
        }));
      if (!ordered.length && !existsSync(path.join(EVAL_CORPUS_DIR, file))) continue;
      writeFileSync(path.join(EVAL_CORPUS_DIR, file), `[\n${ordered.map((q) => `  ${JSON.stringify(q)}`).join(',\n')}\n]\n`);
    }
  } else {
    process.stderr.write('usage: eval-labels pages <document> | find <phrase> | check | fill-pages\n');
    process.exitCode = 2;
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
