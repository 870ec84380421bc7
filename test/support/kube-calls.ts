// The Kubernetes API calls src/ makes, derived from the code with the TypeScript checker — API group, resource,
// verb, scope — so the RBAC in deploy/ can be compared with what the adapter really does.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { FLINK_GROUP, PLURALS } from '../../src/kube/flink-client.js';

export interface KubeCall {
  /** '' for the core group. */
  group: string;
  resource: string;
  verb: string;
  scope: 'namespaced' | 'cluster';
  /** Where the call is made, for failure messages. */
  at: string;
}

const VERB_PREFIX = /^(get|read|list|watch|create|patch|replace|delete|deleteCollection)(Namespaced)?([A-Z]\w*)$/;
/** `connectGetNamespacedServiceProxyWithPath` → `get` on `services/proxy` (the API server's proxy subresource). */
const CONNECT = /^connect(Get|Post|Put|Patch|Delete|Head|Options)(Namespaced)?([A-Z][a-z]+)Proxy(WithPath)?$/;
const CONNECT_VERB: Record<string, string> = {
  Get: 'get',
  Head: 'get',
  Options: 'get',
  Post: 'create',
  Put: 'update',
  Patch: 'patch',
  Delete: 'delete',
};
/** client-node's nouns that name a subresource (`readNamespacedPodLog` → `get` on `pods/log`). */
const SUBRESOURCE_NOUNS: Record<string, string> = { PodLog: 'pods/log' };
/** client-node's method verbs → RBAC verbs. */
const RBAC_VERB: Record<string, string> = { read: 'get', replace: 'update' };
/** client-node's cluster-scoped API groups besides core: the receiver type → its group. */
const GROUP_APIS: Record<string, string> = { ApiextensionsV1Api: 'apiextensions.k8s.io' };
/** API clients whose calls read no resource (GET /version): authorised for every authenticated identity. */
const NON_RESOURCE_APIS = new Set(['VersionApi']);

/** `.ts` files under `dir`, relative to `root`, without `skip` directories. */
export function tsFiles(root: string, dir: string, skip: readonly string[] = []): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return skip.includes(path) ? [] : tsFiles(root, path, skip);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Files under src/ (without the simulators) that import the Kubernetes client library. */
export function kubeClientImporters(root: string): string[] {
  return tsFiles(root, 'src', [join('src', 'sandbox')]).filter((file) =>
    /from '@kubernetes\/client-node'/.test(readFileSync(join(root, file), 'utf8')),
  );
}

function literalValues(checker: ts.TypeChecker, node: ts.Node): string[] {
  const type = checker.getTypeAtLocation(node);
  const parts = type.isUnion() ? type.types : [type];
  return parts.map((t) => (t.isStringLiteral() ? t.value : `<${checker.typeToString(t)}>`));
}

/** A kind name as the watch path maps it: the Flink kinds to their plurals, `Event` to core events. */
function watchedResource(kind: string): { group: string; resource: string } {
  if (kind === 'Event') return { group: '', resource: 'events' };
  const plural = (PLURALS as Record<string, string>)[kind];
  return plural ? { group: FLINK_GROUP, resource: plural } : { group: '?', resource: kind };
}

function propertyOf(object: ts.Expression | undefined, name: string): ts.Expression | undefined {
  if (!object || !ts.isObjectLiteralExpression(object)) return undefined;
  for (const p of object.properties) {
    if (ts.isPropertyAssignment(p) && p.name.getText() === name) return p.initializer;
  }
  return undefined;
}

/** Every call on a CustomObjectsApi / CoreV1Api client and every Watch in the given files. */
export function kubeApiCalls(root: string, files: readonly string[]): { calls: KubeCall[]; unexplained: string[] } {
  const program = ts.createProgram(
    files.map((f) => join(root, f)),
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
  const calls: KubeCall[] = [];
  const unexplained: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(join(root, file));
    if (!source) throw new Error(`TypeScript could not load ${file}`);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const at = `${relative(root, source.fileName)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        const method = node.expression.name.text;
        // client-node exports its ObjectCustomObjectsApi class as CustomObjectsApi (likewise CoreV1Api).
        const receiverType = checker
          .typeToString(checker.getTypeAtLocation(node.expression.expression))
          .replace(/^Object/, '');
        const group = GROUP_APIS[receiverType];
        const groupCall = group === undefined ? null : VERB_PREFIX.exec(method);
        if (group !== undefined) {
          if (!groupCall) unexplained.push(`${at}: ${receiverType}.${method}`);
          else {
            const [, apiVerb = '', namespaced, noun = ''] = groupCall;
            const resource = `${noun.charAt(0).toLowerCase()}${noun.slice(1)}s`.toLowerCase();
            const scope = namespaced ? 'namespaced' : 'cluster';
            calls.push({ group, resource, verb: RBAC_VERB[apiVerb] ?? apiVerb, scope, at });
          }
        } else if (receiverType === 'CustomObjectsApi' || receiverType === 'CoreV1Api') {
          const parsed = VERB_PREFIX.exec(method);
          const connect = receiverType === 'CoreV1Api' ? CONNECT.exec(method) : null;
          if (connect) {
            const [, httpVerb = '', namespaced, noun = ''] = connect;
            calls.push({
              group: '',
              resource: `${noun.toLowerCase()}s/proxy`,
              verb: CONNECT_VERB[httpVerb] ?? httpVerb,
              scope: namespaced ? 'namespaced' : 'cluster',
              at,
            });
          } else if (!parsed) unexplained.push(`${at}: ${receiverType}.${method}`);
          else {
            const [, apiVerb = '', namespaced, noun = ''] = parsed;
            const verb = RBAC_VERB[apiVerb] ?? apiVerb;
            const scope = namespaced ? 'namespaced' : 'cluster';
            if (receiverType === 'CoreV1Api')
              calls.push({ group: '', resource: SUBRESOURCE_NOUNS[noun] ?? `${noun.toLowerCase()}s`, verb, scope, at });
            else {
              const plural = propertyOf(node.arguments[0], 'plural');
              if (!plural) unexplained.push(`${at}: ${method} without a plural`);
              else
                for (const resource of literalValues(checker, plural))
                  calls.push({ group: FLINK_GROUP, resource, verb, scope, at });
            }
          }
        } else if (receiverType === 'Watch' && method === 'watch') {
          const path = node.arguments[0];
          const kind = path && ts.isCallExpression(path) ? path.arguments[0] : undefined;
          if (!kind) unexplained.push(`${at}: Watch.watch with a path not built by watchPath(kind, …)`);
          else
            for (const k of literalValues(checker, kind))
              calls.push({ ...watchedResource(k), verb: 'watch', scope: 'namespaced', at });
        } else if (method === 'makeApiClient') {
          const api = node.arguments[0]?.getText() ?? '';
          if (!['CustomObjectsApi', 'CoreV1Api', ...Object.keys(GROUP_APIS), ...NON_RESOURCE_APIS].includes(api))
            unexplained.push(`${at}: makeApiClient(${api})`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { calls, unexplained };
}
