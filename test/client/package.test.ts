/**
 * `@tipjar/client` as a package, from the repository root: `import { Tipjar } from
 * '@tipjar/client'` resolves (the workspace link) to the built module `packages/client/dist/index.js`
 * in plain Node, without any loader; and a TypeScript program importing it type-checks against the
 * built declarations (`dist/*.d.ts`), with wrong uses refused, as in a project that installed it.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('@tipjar/client from the repository root', () => {
  it('plain Node imports the built module through the workspace link', () => {
    const script = [
      "import { Tipjar, TipjarError, RateLimitError, Paged } from '@tipjar/client';",
      "const tipjar = new Tipjar({ baseUrl: 'http://127.0.0.1:9' });",
      'console.log(JSON.stringify({',
      "  resolved: import.meta.resolve('@tipjar/client'),",
      '  methods: [typeof tipjar.things.get, typeof tipjar.tips.tip, typeof tipjar.oauth.authorizationUrl],',
      '  errors: new RateLimitError({ status: 403, code: "rate_limit_exceeded", description: "d", retryAfter: 5 }) instanceof TipjarError,',
      '  paged: tipjar.users.things("npm") instanceof Paged,',
      '}));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({
      resolved: `file://${join(ROOT, 'packages/client/dist/index.js')}`,
      methods: ['function', 'function', 'function'],
      errors: true,
      paged: true,
    });
  });

  it('TypeScript checks a consumer against the built declarations (dist/index.d.ts)', () => {
    const consumer = join(ROOT, 'consumer-of-tipjar-client.ts');
    const code = `
import { Tipjar, TipjarError, type Thing, type Tip } from '@tipjar/client';
export async function firstTip(token: string): Promise<string> {
  const tipjar = new Tipjar({ baseUrl: 'https://tipjar.example', accessToken: token });
  const thing: Thing = await tipjar.things.get(1);
  const title: string = thing.title;
  // @ts-expect-error a thing's title is a string
  const wrong: number = thing.title;
  // @ts-expect-error tips.tip takes a thing id
  await tipjar.tips.tip('1');
  for await (const tip of tipjar.users.tips('npm')) {
    const t: Tip = tip;
    return t.owner.username;
  }
  try {
    await tipjar.tips.tip(thing.id);
  } catch (err) {
    if (err instanceof TipjarError && err.code === 'tip_once') return err.description;
  }
  return title + String(wrong);
}
`;
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: [],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
    };
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    const readFile = host.readFile.bind(host);
    host.getSourceFile = (name, language, ...rest) =>
      name === consumer ? ts.createSourceFile(name, code, language) : getSourceFile(name, language, ...rest);
    host.fileExists = (name) => name === consumer || fileExists(name);
    host.readFile = (name) => (name === consumer ? code : readFile(name));
    const program = ts.createProgram([consumer], options, host);
    const resolved = program.getSourceFiles().map((f) => f.fileName);
    expect(resolved).toContain(join(ROOT, 'packages/client/dist/index.d.ts'));
    expect(resolved.some((f) => f.includes('/packages/client/src/'))).toBe(false);
    const diagnostics = ts.getPreEmitDiagnostics(program);
    expect(
      ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => '\n',
      }),
    ).toBe('');
  });
});
