// Test isolation: every `it`/`test` must be able to run alone (`jest -t`) and in any order
// (`jest --randomize`). This checker refuses the commonest way to break that: a variable declared
// outside a test body (file or describe scope) that a test body assigns, so that another test reads
// what the first one left behind. Set-up belongs in beforeAll/beforeEach (or a fixture function in
// test/support/); assignments there, in afterEach/afterAll and in helpers are fine.
//
//   node scripts/check-test-isolation.mjs [file-or-dir ...]   (default: test/, every *.test.ts)
//
// Prints one line per violation (file:line:col  name  assigned inside test "…") and exits 1 when it
// found any. test/unit/test-isolation.test.ts runs it over the test tree and over its fixtures.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEST_FNS = new Set(['it', 'test', 'fit', 'xit', 'xtest']);

/** Every *.test.ts under the given files and directories (fixtures are only read when named). */
function testFiles(targets) {
  const out = [];
  const walk = (p, named) => {
    const s = statSync(p);
    if (s.isDirectory()) {
      for (const e of readdirSync(p).sort()) {
        if (e === 'node_modules' || (e === 'fixtures' && !named)) continue;
        walk(path.join(p, e), false);
      }
    } else if (named || p.endsWith('.test.ts')) out.push(p);
  };
  for (const t of targets) walk(path.resolve(t), true);
  return out;
}

/** `it`, `test.only`, `it.each(table)`, it.each`table`, `(cond ? it : it.skip)` …: a test function. */
function isTestFunction(e) {
  if (ts.isParenthesizedExpression(e)) return isTestFunction(e.expression);
  if (ts.isConditionalExpression(e)) return isTestFunction(e.whenTrue) || isTestFunction(e.whenFalse);
  if (ts.isCallExpression(e)) return isTestFunction(e.expression); // it.each(table)(name, fn)
  if (ts.isTaggedTemplateExpression(e)) return isTestFunction(e.tag); // it.each`table`(name, fn)
  if (ts.isPropertyAccessExpression(e)) return isTestFunction(e.expression); // it.only, it.concurrent.each
  return ts.isIdentifier(e) && TEST_FNS.has(e.text);
}

const isTestCall = (node) => isTestFunction(node.expression);

function testName(call, sf) {
  const arg = call.arguments[0];
  return arg ? arg.getText(sf).slice(0, 80) : '?';
}

/** The identifiers a write targets: `x = …`, `x += …`, `x++`, `[a, { b }] = …`. */
function assignedIdentifiers(target) {
  if (ts.isParenthesizedExpression(target)) return assignedIdentifiers(target.expression);
  if (ts.isIdentifier(target)) return [target];
  if (ts.isArrayLiteralExpression(target))
    return target.elements.flatMap((e) => assignedIdentifiers(ts.isSpreadElement(e) ? e.expression : e));
  if (ts.isObjectLiteralExpression(target)) {
    return target.properties.flatMap((p) => {
      if (ts.isShorthandPropertyAssignment(p)) return [p.name];
      if (ts.isPropertyAssignment(p)) return assignedIdentifiers(p.initializer);
      if (ts.isSpreadAssignment(p)) return assignedIdentifiers(p.expression);
      return [];
    });
  }
  if (ts.isBinaryExpression(target) && target.operatorToken.kind === ts.SyntaxKind.EqualsToken) return assignedIdentifiers(target.left); // default value
  return [];
}

function isAssignmentOperator(kind) {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

export function checkFiles(targets) {
  const files = testFiles(targets);
  const program = ts.createProgram(files, { noResolve: true, noLib: true, types: [], allowJs: false, target: ts.ScriptTarget.ES2022 });
  const checker = program.getTypeChecker();
  const violations = [];
  for (const file of files) {
    const sf = program.getSourceFile(file);
    const visit = (node, inside) => {
      // inside: the innermost test call whose body we are in (undefined outside any test body)
      if (ts.isCallExpression(node) && isTestCall(node)) {
        for (const arg of node.arguments) visit(arg, ts.isFunctionLike(arg) ? node : inside);
        return;
      }
      if (inside) {
        let targets = [];
        if (ts.isBinaryExpression(node) && isAssignmentOperator(node.operatorToken.kind)) targets = assignedIdentifiers(node.left);
        else if (
          (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
          (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)
        )
          targets = assignedIdentifiers(node.operand);
        else if ((ts.isForOfStatement(node) || ts.isForInStatement(node)) && !ts.isVariableDeclarationList(node.initializer))
          targets = assignedIdentifiers(node.initializer);
        for (const id of targets) {
          // `{ x } = …` names the property; the variable is the shorthand's value symbol
          const symbol = ts.isShorthandPropertyAssignment(id.parent)
            ? checker.getShorthandAssignmentValueSymbol(id.parent)
            : checker.getSymbolAtLocation(id);
          const decl = symbol?.declarations?.[0];
          if (!decl || decl.getSourceFile() !== sf) continue; // a global (process, globalThis …)
          const body = inside.arguments.find((a) => ts.isFunctionLike(a));
          if (decl.pos >= body.pos && decl.end <= body.end) continue; // the test's own variable
          const { line, character } = sf.getLineAndCharacterOfPosition(id.getStart(sf));
          violations.push({
            file: path.relative(ROOT, file),
            line: line + 1,
            column: character + 1,
            name: id.text,
            test: testName(inside, sf),
          });
        }
      }
      ts.forEachChild(node, (child) => visit(child, inside));
    };
    visit(sf, undefined);
  }
  return { files: files.length, violations };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const targets = process.argv.slice(2);
  const { files, violations } = checkFiles(targets.length ? targets : [path.join(ROOT, 'test')]);
  for (const v of violations) {
    console.log(`${v.file}:${v.line}:${v.column}  ${v.name}  assigned inside test ${v.test}`);
  }
  console.log(
    violations.length
      ? `${violations.length} assignment(s) to variables declared outside a test body, in ${new Set(violations.map((v) => v.file)).size} file(s) of ${files}: move the set-up into beforeAll/beforeEach`
      : `${files} test file(s): no test assigns a variable declared outside its body`,
  );
  process.exitCode = violations.length ? 1 : 0;
}
