import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '../..');
const FILE = path.join(ROOT, 'web/lib/routes.type-test.ts');

/** The errors tsc reports for the type-test file, compiled with the web app's own options; `strip` takes the directives out. */
function errorLines(strip: boolean): number[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'web/tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('web/tsconfig.json could not be read');
  const host = ts.createCompilerHost(config.options);
  const read = host.readFile.bind(host);
  host.readFile = (f) => {
    const text = read(f);
    return strip && path.resolve(f) === FILE ? text?.replace(/\/\/ @ts-expect-error.*/g, '//') : text;
  };
  const program = ts.createProgram([FILE], config.options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    if (d.file?.fileName !== FILE.replace(/\\/g, '/') || d.start === undefined)
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    return d.file.getLineAndCharacterOfPosition(d.start).line + 1;
  });
}

describe("the web app's API calls are typed from the server's request schemas (web/lib/routes.ts)", () => {
  const text = ts.sys.readFile(FILE) ?? '';
  /** The lines right after each `@ts-expect-error`: the calls the types must refuse. */
  const refused = text.split('\n').flatMap((line, i) => (line.includes('// @ts-expect-error') ? [i + 2] : []));

  it('compiles, every expected error met', () => {
    expect(refused.length).toBeGreaterThanOrEqual(10);
    expect(errorLines(false)).toEqual([]);
  });

  it('refuses each wrong call, and only those, once the directives are gone', () => {
    expect([...new Set(errorLines(true))].sort((a, b) => a - b)).toEqual(refused);
  });
});
