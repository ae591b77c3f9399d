import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { publishablePackages, WORKSPACE } from "./packed.js";

/**
 * Every ```ts example of a package README, type-checked against the built packages as a user's ESM
 * module (top-level await allowed): a call with the wrong arguments, a property the result does not
 * have, a Promise used as its value (`loadStoredRun(…)` without `await`) or an import of a name the
 * package does not export fails here. Names the example leaves to the reader (`run`, `prompt`, ...)
 * are not checked; names a package of ours exports are imported for the example when it does not.
 */

interface Example {
  readme: string;
  line: number;
  source: string;
}

/** The ```ts blocks of a README with the line they start on. */
export function tsBlocks(readme: string, text: string): Example[] {
  const examples: Example[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i] ?? "")) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? "")) end++;
    examples.push({ readme, line: start + 1, source: lines.slice(start, end).join("\n") });
    i = end;
  }
  return examples;
}

/** Diagnostics about names the example leaves undeclared (free variables standing for the reader's). */
const UNDECLARED = new Set([2304, 2552, 18004]);

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2023.d.ts"],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ["node"],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};

const scratch = join(WORKSPACE, "e2e", "test-results", "readme-examples");

/** name -> the package of ours that exports it (the first README's own package wins, see below). */
function exportedNames(program: ts.Program, packages: readonly string[]): Map<string, string[]> {
  const checker = program.getTypeChecker();
  const names = new Map<string, string[]>();
  const probe = program.getSourceFile(join(scratch, "probe.mts"));
  const imports = probe?.statements.filter(ts.isImportDeclaration) ?? [];
  for (const pkg of packages) {
    const specifier = imports.find(
      (statement) => (statement.moduleSpecifier as ts.StringLiteral).text === pkg,
    )?.moduleSpecifier;
    const symbol = specifier && checker.getSymbolAtLocation(specifier);
    if (!symbol) throw new Error(`cannot resolve ${pkg}'s declarations: build the packages first`);
    for (const exported of checker.getExportsOfModule(symbol)) {
      names.set(exported.name, [...(names.get(exported.name) ?? []), pkg]);
    }
  }
  return names;
}

function compile(files: Map<string, string>): ts.Program {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  for (const [file, source] of files) writeFileSync(join(scratch, file), source);
  return ts.createProgram(
    [...files.keys()].map((file) => join(scratch, file)),
    COMPILER_OPTIONS,
  );
}

/** Type errors of each example, as "README:line: message"; empty when every example checks. */
function checkExamples(examples: readonly Example[]): string[] {
  const packages = publishablePackages().map((pkg) => pkg.name);
  const probe = `${packages.map((pkg, i) => `import * as p${i} from "${pkg}";`).join("\n")}\nexport { ${packages.map((_, i) => `p${i}`).join(", ")} };\n`;
  const fileOf = (index: number) => `example-${index}.mts`;
  const first = compile(
    new Map([
      ["probe.mts", probe],
      ...examples.map((example, i) => [fileOf(i), `${example.source}\nexport {};\n`] as const),
    ]),
  );
  const exported = exportedNames(first, packages);
  const unknown: string[] = [];
  // Second pass: each example with imports of the names it uses undeclared that a package of ours exports.
  const prefixes = examples.map((example, i) => {
    const file = first.getSourceFile(join(scratch, fileOf(i)));
    const missing = new Map<string, string>();
    for (const diagnostic of file ? ts.getPreEmitDiagnostics(first, file) : []) {
      if (!UNDECLARED.has(diagnostic.code) || diagnostic.start === undefined || !file) continue;
      const name = file.text.slice(diagnostic.start, diagnostic.start + (diagnostic.length ?? 0));
      // Only a call or a type: `outputRoot,` in an options object is the reader's value, not ours.
      if (!calledOrTyped(file, diagnostic.start)) continue;
      const from = exported.get(name);
      if (!from) {
        unknown.push(
          `${example.readme}:${example.line + file.getLineAndCharacterOfPosition(diagnostic.start).line}: ${name} is used but neither declared nor exported by a package of ours`,
        );
        continue;
      }
      const own = from.find((pkg) =>
        [`/${pkg.split("/")[1]}/`, `docs/${pkg.split("/")[1]}-reference.md`].some((part) =>
          example.readme.includes(part),
        ),
      );
      missing.set(name, own ?? (from[0] as string));
    }
    return [...missing].map(([name, pkg]) => `import { ${name} } from "${pkg}";\n`).join("");
  });
  const second = compile(
    new Map(examples.map((example, i) => [fileOf(i), `${prefixes[i]}${example.source}\nexport {};\n`])),
  );
  const problems: string[] = [...unknown];
  examples.forEach((example, i) => {
    const file = second.getSourceFile(join(scratch, fileOf(i)));
    if (!file) throw new Error(`example ${fileOf(i)} was not compiled`);
    const offset = (prefixes[i] ?? "").split("\n").length - 1;
    const checker = second.getTypeChecker();
    const at = (node: ts.Node) =>
      example.line + file.getLineAndCharacterOfPosition(node.getStart()).line - offset;
    for (const call of floatingPromises(file, checker)) {
      problems.push(
        `${example.readme}:${at(call)}: ${call.getText().split("\n")[0]} returns a Promise: await it`,
      );
    }
    for (const diagnostic of ts.getPreEmitDiagnostics(second, file)) {
      if (UNDECLARED.has(diagnostic.code)) continue;
      const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n").split("\n")[0];
      problems.push(`${example.readme}:${example.line + line - offset}: TS${diagnostic.code} ${message}`);
    }
  });
  return problems;
}

/** Whether the identifier at `start` is called (`name(...)`, `new name`) or names a type. */
function calledOrTyped(file: ts.SourceFile, start: number): boolean {
  let found: ts.Identifier | undefined;
  const visit = (node: ts.Node) => {
    if (found || start < node.getStart(file) || start >= node.getEnd()) return;
    if (ts.isIdentifier(node) && node.getStart(file) === start) found = node;
    else ts.forEachChild(node, visit);
  };
  visit(file);
  const parent = found?.parent;
  if (!found || !parent) return false;
  return (
    ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.expression === found) ||
    ts.isTypeReferenceNode(parent) ||
    ts.isExpressionWithTypeArguments(parent)
  );
}

/** Calls whose Promise the example drops: a statement of its own, neither awaited nor returned. */
function floatingPromises(file: ts.SourceFile, checker: ts.TypeChecker): ts.CallExpression[] {
  const calls: ts.CallExpression[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isExpressionStatement(node) && ts.isCallExpression(node.expression)) {
      const type = checker.getTypeAtLocation(node.expression);
      if (type.getSymbol()?.getName() === "Promise") calls.push(node.expression);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return calls;
}

/** The examples of every package README and of its reference page in docs/ (`docs/<name>-reference.md`). */
function readmeExamples(): Example[] {
  return readdirSync(join(WORKSPACE, "packages")).flatMap((name) =>
    [`packages/${name}/README.md`, `docs/${name}-reference.md`].flatMap((readme) => {
      try {
        return tsBlocks(readme, readFileSync(join(WORKSPACE, readme), "utf8"));
      } catch {
        return [];
      }
    }),
  );
}

describe("the README examples of every package", () => {
  it("type-check against the built packages", () => {
    const examples = readmeExamples();
    expect(examples.length).toBeGreaterThan(20);
    expect(checkExamples(examples)).toEqual([]);
  });

  it("would fail on a call that misuses the API", () => {
    const problems = checkExamples([
      {
        readme: "packages/core/README.md",
        line: 10,
        source: [
          'const run = runFromStreamJson([], { prompts: ["hi"] });',
          "const sequence: number[] = toolSequence(run);",
          'const events = readJsonlFile("events.jsonl").length;',
          'readRunFolder("test-output/run-1");',
          'const stored = await loadRun("test-output/run-1");',
        ].join("\n"),
      },
    ]);
    expect(problems).toEqual([
      "packages/core/README.md:14: loadRun is used but neither declared nor exported by a package of ours",
      'packages/core/README.md:13: readRunFolder("test-output/run-1") returns a Promise: await it',
      expect.stringMatching(/^packages\/core\/README\.md:11: TS2322 /),
      expect.stringMatching(
        /^packages\/core\/README\.md:12: TS2339 Property 'length' does not exist on type 'Promise/,
      ),
    ]);
  });
});
