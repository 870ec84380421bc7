// What one module imports, as the import checker sees it: every edge with its line, every way around `import`
// that cannot be checked, and the clock, randomness, process and I/O globals the domain must not touch.
import ts from 'typescript';

/** `require`: a `require()` call or `import x = require()`, which loads at run time like a static import. */
export type ImportKind = 'static' | 'type' | 'dynamic' | 'require';

export interface FoundImport {
  /** As written in the source. */
  specifier: string;
  kind: ImportKind;
  /** 1-based. */
  line: number;
  /** How it was written, when not plain `import`/`import type`/`import()`: `require()`, `import = require()`, `declare module`. */
  form?: string;
}

/** A way of loading code the checker cannot follow, or should not have to: reported wherever it is. */
export interface Escape {
  what: 'computed' | 'require' | 'reference';
  line: number;
  text: string;
}

/** A use of the clock, randomness, the process or global I/O: a problem in areas marked `pure`. */
export interface ImpureUse {
  name: string;
  line: number;
}

export interface Scan {
  imports: FoundImport[];
  escapes: Escape[];
  impure: ImpureUse[];
}

/** Globals a pure module must not reference at all (the domain takes the clock and randomness as parameters). */
const IMPURE_GLOBALS = new Set([
  'process',
  'performance',
  'globalThis',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'fetch',
]);
/** node:crypto's randomness (node:crypto itself is allowed for hashing) and the Web Crypto one. */
const RANDOM_NAMES = new Set([
  'randomUUID',
  'randomBytes',
  'randomInt',
  'randomFill',
  'randomFillSync',
  'getRandomValues',
]);

/**
 * Every import of `source`: static, `export … from`, type-only, `import()` (also in type positions), `require()`
 * (also through a `require` made by createRequire, or `module.require`), `import x = require()`, and module
 * augmentations (`declare module '…'`). Only a whole declaration marked `type` is type-only: under
 * verbatimModuleSyntax `import { type A }` still loads the module.
 */
export function importsOf(source: string, fileName = 'module.ts'): FoundImport[] {
  return scan(source, fileName).imports;
}

export function scan(source: string, fileName = 'module.ts'): Scan {
  const kind = /\.(c|m)?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (pos: number): number => file.getLineAndCharacterOfPosition(pos).line + 1;
  const at = (node: ts.Node): number => lineOf(node.getStart(file));
  const found: Scan = { imports: [], escapes: [], impure: [] };
  const requires = requireNames(file);
  const visit = (node: ts.Node): void => {
    const edge = edgeOf(node, requires);
    if (edge) found.imports.push({ ...edge, line: at(node) });
    const escape = escapeOf(node, requires);
    if (escape) found.escapes.push({ ...escape, line: at(node) });
    const impure = impureName(node);
    if (impure) found.impure.push({ name: impure, line: at(node) });
    ts.forEachChild(node, visit);
  };
  visit(file);
  for (const ref of [...file.referencedFiles, ...file.typeReferenceDirectives]) {
    const text = `/// <reference ${file.referencedFiles.includes(ref) ? 'path' : 'types'}="${ref.fileName}" /> (use import type)`;
    found.escapes.push({ what: 'reference', line: lineOf(ref.pos), text });
  }
  return found;
}

/** The literal specifier of a call's first argument, or undefined when it is computed. */
function literalArgument(call: ts.CallExpression): string | undefined {
  const [arg] = call.arguments;
  return arg && ts.isStringLiteralLike(arg) ? arg.text : undefined;
}

/** The import edge `node` makes, when it makes one the checker can follow. */
function edgeOf(node: ts.Node, requires: ReadonlySet<string>): Omit<FoundImport, 'line'> | undefined {
  if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
    return { specifier: node.moduleSpecifier.text, kind: node.importClause?.isTypeOnly ? 'type' : 'static' };
  }
  if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
    return { specifier: node.moduleSpecifier.text, kind: node.isTypeOnly ? 'type' : 'static' };
  }
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
    return { specifier: node.argument.literal.text, kind: 'type' };
  }
  if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
    const ref = node.moduleReference.expression;
    if (ts.isStringLiteralLike(ref))
      return { specifier: ref.text, kind: node.isTypeOnly ? 'type' : 'require', form: 'import = require()' };
  }
  if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
    return { specifier: node.name.text, kind: 'type', form: 'declare module' };
  }
  if (!ts.isCallExpression(node)) return undefined;
  const specifier = literalArgument(node);
  if (specifier === undefined) return undefined;
  if (node.expression.kind === ts.SyntaxKind.ImportKeyword) return { specifier, kind: 'dynamic' };
  if (isRequireCall(node, requires)) return { specifier, kind: 'require', form: 'require()' };
  return undefined;
}

/** A loading the checker cannot follow (computed specifiers), or one it follows but refuses (`require`). */
function escapeOf(node: ts.Node, requires: ReadonlySet<string>): Omit<Escape, 'line'> | undefined {
  if (ts.isCallExpression(node)) {
    const literal = literalArgument(node) !== undefined;
    if (node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      return literal
        ? undefined
        : { what: 'computed', text: 'import() of a computed specifier cannot be checked: name the module literally' };
    }
    if (isRequireCall(node, requires)) {
      return {
        what: 'require',
        text: `${node.expression.getText()}(${literal ? `'${literalArgument(node)}'` : '…'}): use import`,
      };
    }
  }
  if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
    return { what: 'require', text: `import ${node.name.text} = require(…): use import` };
  }
  if (mentionsCreateRequire(node)) return { what: 'require', text: 'createRequire (node:module): use import' };
  return undefined;
}

/** `createRequire` by name anywhere: imported, re-exported, destructured, called, or read off `module`. */
function mentionsCreateRequire(node: ts.Node): boolean {
  if (ts.isIdentifier(node)) return node.text === 'createRequire';
  return (
    ts.isElementAccessExpression(node) &&
    ts.isStringLiteralLike(node.argumentExpression) &&
    node.argumentExpression.text === 'createRequire'
  );
}

/** `require(…)`, `module.require(…)`, or a call of a name bound to what createRequire returned. */
function isRequireCall(call: ts.CallExpression, requires: ReadonlySet<string>): boolean {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text === 'require' || requires.has(callee.text);
  return (
    ts.isPropertyAccessExpression(callee) &&
    callee.name.text === 'require' &&
    ts.isIdentifier(callee.expression) &&
    callee.expression.text === 'module'
  );
}

/** Names bound to a createRequire result (`const req = createRequire(import.meta.url)`), wherever they are declared. */
function requireNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      const init = unwrap(node.initializer);
      if (ts.isCallExpression(init) && calleeMentionsCreateRequire(init.expression)) names.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/** The expression inside parentheses, `as`, `satisfies`, `!` and `<T>` casts. */
function unwrap(expr: ts.Expression): ts.Expression {
  let e = expr;
  while (
    ts.isParenthesizedExpression(e) ||
    ts.isAsExpression(e) ||
    ts.isSatisfiesExpression(e) ||
    ts.isNonNullExpression(e) ||
    ts.isTypeAssertionExpression(e)
  ) {
    e = e.expression;
  }
  return e;
}

/** `createRequire`, `m.createRequire`, or an alias imported as `{ createRequire as cr }`. */
function calleeMentionsCreateRequire(callee: ts.Expression): boolean {
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text === 'createRequire';
  if (!ts.isIdentifier(callee)) return false;
  if (callee.text === 'createRequire') return true;
  const file = callee.getSourceFile();
  return file.statements.some(
    (s) =>
      ts.isImportDeclaration(s) &&
      s.importClause?.namedBindings !== undefined &&
      ts.isNamedImports(s.importClause.namedBindings) &&
      s.importClause.namedBindings.elements.some(
        (e) => e.name.text === callee.text && e.propertyName?.text === 'createRequire',
      ),
  );
}

/** The clock, randomness or global that `node` uses, named as written (`Date.now`, `new Date()`, `process`, …). */
function impureName(node: ts.Node): string | undefined {
  if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
    const name = `${node.expression.text}.${node.name.text}`;
    if (name === 'Date.now' || name === 'Math.random') return name;
  }
  if (
    ts.isNewExpression(node) &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'Date' &&
    !node.arguments?.length
  ) {
    return 'new Date()';
  }
  if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Date') return 'Date()';
  if (!ts.isIdentifier(node)) return undefined;
  if (RANDOM_NAMES.has(node.text)) return node.text;
  if (!IMPURE_GLOBALS.has(node.text) || !isReference(node)) return undefined;
  const p = node.parent;
  return ts.isPropertyAccessExpression(p) ? `${node.text}.${p.name.text}` : node.text;
}

/** Whether an identifier reads a variable (not a property name, a declaration's own name, or a type). */
function isReference(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p)) return p.expression === id;
  if (ts.isShorthandPropertyAssignment(p)) return true;
  if (
    ts.isQualifiedName(p) ||
    ts.isTypeQueryNode(p) ||
    ts.isTypeReferenceNode(p) ||
    ts.isImportSpecifier(p) ||
    ts.isExportSpecifier(p)
  )
    return false;
  if (ts.isBindingElement(p) && p.propertyName === id) return false;
  return !('name' in p && p.name === id);
}
