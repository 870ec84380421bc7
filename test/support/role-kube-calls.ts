// The Kubernetes calls each role's code can make: the FlinkClient methods (and the shared watches) reachable from a
// role's composition root, mapped through the adapter to API group, resource and verb (for the per-role RBAC test).
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { kubeApiCalls, kubeClientImporters, type KubeCall } from './kube-calls.js';

export type RoleName = 'bot' | 'worker';

export interface RoleCalls {
  /** Adapter methods (`ClientNodeFlinkClient.get`, …, `WatchHub.watch`) the role's code calls, with where. */
  methods: Map<string, string[]>;
  /** The Kubernetes calls behind those methods. */
  calls: KubeCall[];
}

const WATCH_HUB = 'src/kube/watch-hub.ts';

/** One adapter class of src/kube and the Kubernetes calls of each of its methods. */
interface Adapter {
  /** The class and the port interfaces it implements: role code holds it typed as any of them. */
  names: string[];
  methods: Map<string, KubeCall[]>;
}

/** Files a module imports (static, re-exports and `import()`), relative to root; sandbox code never counts. */
function importsOf(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specs = [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1] ?? '');
  return specs
    .map((spec) => normalize(join(dirname(file), spec.replace(/\.js$/, '.ts'))))
    .filter((path) => !path.startsWith(join('src', 'sandbox')));
}

/** Every source file reachable from `entry` through relative imports. */
export function reachableFiles(root: string, entry: string): string[] {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...importsOf(root, file));
  }
  return [...seen].sort();
}

/** Every adapter class in src/kube that uses the client library, with the calls each method makes. */
function adapters(root: string): Adapter[] {
  const files = kubeClientImporters(root).filter((f) => f.startsWith(join('src', 'kube')) && f !== WATCH_HUB);
  const { calls, unexplained } = kubeApiCalls(root, files);
  if (unexplained.length > 0) throw new Error(`calls the derivation cannot read: ${unexplained.join(', ')}`);
  const found: Adapter[] = [];
  const owner = new Map<string, { adapter: Adapter; method: string }>();
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.ES2022, true);
    source.forEachChild((node) => {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      const implemented = (node.heritageClauses ?? []).flatMap((h) => h.types.map((t) => t.expression.getText(source)));
      const adapter: Adapter = { names: [node.name.text, ...implemented], methods: new Map() };
      found.push(adapter);
      for (const member of node.members) {
        if (
          !ts.isMethodDeclaration(member) ||
          (member.modifiers ?? []).some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)
        )
          continue;
        const first = source.getLineAndCharacterOfPosition(member.getStart(source)).line + 1;
        const last = source.getLineAndCharacterOfPosition(member.getEnd()).line + 1;
        adapter.methods.set(member.name.getText(source), []);
        for (let line = first; line <= last; line++)
          owner.set(`${file}:${line}`, { adapter, method: member.name.getText(source) });
      }
    });
  }
  for (const call of calls) {
    const at = owner.get(call.at);
    // A call in a private helper (the client's `call`) is made by every public method that uses it: those
    // pass the request in as a closure, so the closure's lines belong to the public method already.
    if (!at) throw new Error(`${call.at}: a Kubernetes call outside a public adapter method`);
    at.adapter.methods.get(at.method)?.push(call);
  }
  const watches = kubeApiCalls(root, [WATCH_HUB]);
  found.push({ names: ['WatchHub'], methods: new Map([['watch', watches.calls]]) });
  return found;
}

/** The adapter methods and Kubernetes calls of each role, read with the TypeScript checker. */
export function roleKubeCalls(
  root: string,
  roles: readonly RoleName[] = ['bot', 'worker'],
): Record<RoleName, RoleCalls> {
  const known = adapters(root);
  const files = new Map(roles.map((role) => [role, reachableFiles(root, join('src', 'roles', `${role}.ts`))]));
  const program = ts.createProgram(
    [...new Set([...files.values()].flat())].map((f) => join(root, f)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
  );
  const checker = program.getTypeChecker();
  const result = {} as Record<RoleName, RoleCalls>;
  for (const role of roles) {
    const methods = new Map<string, string[]>();
    const note = (method: string, at: string) => methods.set(method, [...(methods.get(method) ?? []), at]);
    for (const file of files.get(role) ?? []) {
      if (file.startsWith(join('src', 'kube'))) continue;
      const source = program.getSourceFile(join(root, file));
      if (!source) throw new Error(`TypeScript could not load ${file}`);
      const visit = (node: ts.Node): void => {
        const at = () =>
          `${relative(root, source.fileName)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        if (ts.isNewExpression(node) && node.expression.getText() === 'WatchHub') note('WatchHub.watch', at());
        if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
          const receiver = checker.typeToString(checker.getTypeAtLocation(node.expression.expression));
          const method = node.expression.name.text;
          for (const adapter of known) {
            if (adapter.names.some((n) => new RegExp(`\\b${n}\\b`).test(receiver)) && adapter.methods.has(method))
              note(`${adapter.names[0]}.${method}`, at());
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    const callsOf = (key: string) => {
      const [name, method = ''] = key.split('.');
      return known.find((a) => a.names[0] === name)?.methods.get(method) ?? [];
    };
    result[role] = { methods, calls: [...methods.keys()].flatMap(callsOf) };
  }
  return result;
}
