// The code cites the project's own docs, never a document outside the repository: no citation of the old external
// specification anywhere; every `docs/<page>.md` and `docs/<page>.md#<anchor>` (or `README.md#<anchor>`) citation
// in code, and every `<page>.md#<anchor>` link between the docs, names a page and a heading that exist (GitHub's
// anchor rules).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where code and its comments live; packages/sim once the simulators have moved there. */
const CODE_ROOTS = ['src', 'test', 'bench', 'scripts', 'bin', 'deploy', 'examples', 'packages/sim'];
const TEXT_FILE = /\.(?:[cm]?[jt]s|sh|lua|ya?ml|json|md|html|css)$|^Dockerfile$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git']);

// Built from parts, so that this file does not trip its own scan.
const SECTION = '\u00a7';
const FORBIDDEN = [
  `SPEC ${SECTION}`,
  `reference ${SECTION}`,
  ['OPERATOR', 'CONFORMANCE'].join('_'),
  ['FLINK', 'OPERATOR.md'].join('_'),
  ['SLACK', 'AND', 'QUEUE'].join('_'),
  ['..', 'shared', 'reference'].join('/'),
];

/** `docs/<page>.md#<anchor>` or `README.md#<anchor>`, as code cites them (paths from the repository root). */
const CODE_CITATION = /(?<![\w./-])((?:docs\/[\w.-]+|README)\.md)(?:#([\p{L}\p{N}_-]+))?/gu;
/** The older form, `docs/<page>.md "<Heading>"`: checked the same way, through the heading's anchor. */
const QUOTED_CITATION = /(?<![\w./-])((?:docs\/[\w.-]+|README)\.md) "([^"]+)"/gu;
/** Markdown links with an anchor, `[text](page.md#anchor)` or `[text](#anchor)`, relative to the linking page. */
const DOC_LINK = /\]\(([^()\s#]*)#([^()\s]+)\)/g;

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  if (statSync(dir).isFile()) return [dir];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    // .render-*: the scratch overlays test/support/kustomize.ts writes into deploy/ (and deletes) while deploy tests run.
    if (SKIP_DIRS.has(entry.name) || entry.name.startsWith('.render-')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return TEXT_FILE.test(entry.name) ? [path] : [];
  });
}

/** GitHub's anchor of a heading: inline markup dropped, lowercased, punctuation removed, spaces to '-'. */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a markdown page offers: its headings outside code fences, repeats numbered as GitHub does. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    const heading = fence === undefined ? /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)?.[1] : undefined;
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

interface Citation {
  where: string;
  page: string;
  /** Empty when the whole page is cited. */
  anchor: string;
}

/** The citations in one file's text: `page` relative to the repository root. */
export function citationsIn(where: string, text: string, linkBase?: string): Citation[] {
  const found = [...text.matchAll(CODE_CITATION)].map((m) => ({ where, page: m[1] ?? '', anchor: m[2] ?? '' }));
  for (const m of text.matchAll(QUOTED_CITATION)) found.push({ where, page: m[1] ?? '', anchor: slug(m[2] ?? '') });
  if (linkBase === undefined) return found;
  for (const m of text.matchAll(DOC_LINK)) {
    const target = m[1] ?? '';
    if (target !== '' && !target.endsWith('.md')) continue;
    if (/^[a-z]+:/.test(target)) continue;
    const page = target === '' ? where : normalize(join(linkBase, target));
    found.push({ where, page, anchor: decodeURIComponent(m[2] ?? '') });
  }
  return found;
}

const anchorCache = new Map<string, Set<string> | undefined>();
function anchorsOfPage(page: string): Set<string> | undefined {
  if (!anchorCache.has(page)) {
    const path = join(ROOT, page);
    anchorCache.set(page, existsSync(path) ? anchorsOf(readFileSync(path, 'utf8')) : undefined);
  }
  return anchorCache.get(page);
}

/** The citations among `citations` that name a missing page or section, as readable lines. */
export function broken(
  citations: readonly Citation[],
  anchors: (page: string) => Set<string> | undefined = anchorsOfPage,
): string[] {
  return citations.flatMap(({ where, page, anchor }) => {
    const offered = anchors(page);
    if (offered === undefined) return [`${where}: ${page} does not exist`];
    return anchor === '' || offered.has(anchor) ? [] : [`${where}: ${page} has no section #${anchor}`];
  });
}

const codeFiles = CODE_ROOTS.flatMap((root) => filesUnder(join(ROOT, root)));
const docPages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const rel = (path: string) => relative(ROOT, path);

describe('the code cites the project docs', () => {
  it('scans the code (and packages/sim when it exists)', () => {
    expect(codeFiles.length).toBeGreaterThan(100);
    expect(codeFiles.some((f) => rel(f) === 'test/repo/citations.test.ts')).toBe(true);
  });

  it('never cites a document outside the repository', () => {
    const hits = codeFiles.concat(docPages.map((p) => join(ROOT, p))).flatMap((file) => {
      const lines = readFileSync(file, 'utf8').split('\n');
      return lines.flatMap((line, i) =>
        FORBIDDEN.filter((f) => line.includes(f)).map((f) => `${rel(file)}:${i + 1}: ${f}`),
      );
    });
    expect(hits).toEqual([]);
  });

  it('every docs citation in the code names an existing section', () => {
    const citations = codeFiles.flatMap((file) => citationsIn(rel(file), readFileSync(file, 'utf8')));
    expect(citations.length).toBeGreaterThan(200);
    expect(broken(citations)).toEqual([]);
  });

  it('every test file the docs, the code or the manifests name exists (tests move with their modules)', () => {
    const named = /(?<![\w./-])((?:packages\/sim\/)?test\/[\w./-]+\.test\.ts)/g;
    const missing = codeFiles.concat(docPages.map((p) => join(ROOT, p))).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(named)]
        .map((m) => m[1] as string)
        .filter((path) => !path.includes('<') && !existsSync(join(ROOT, path)))
        .map((path) => `${rel(file)}: ${path}`),
    );
    // Illustrations, not references: the made-up kind of docs/development.md, the layout rule's own example.
    const examples = ['kinds/drain.test.ts', 'test/repo/test-layout.test.ts: '];
    expect(missing.filter((line) => !examples.some((e) => line.includes(e)))).toEqual([]);
  });

  it('every link between the docs names an existing section', () => {
    const citations = docPages.flatMap((page) =>
      citationsIn(page, readFileSync(join(ROOT, page), 'utf8'), dirname(page)),
    );
    expect(broken(citations)).toEqual([]);
  });
});

describe('the citation checker', () => {
  const page = [
    '# The life of an operation',
    '## States',
    '```yaml',
    '# not a heading',
    '```',
    '### `/flink lock`',
    '## States',
    '## Who? Me, again.',
  ].join('\n');

  it('derives anchors as GitHub does: markup and punctuation dropped, repeats numbered, code fences skipped', () => {
    expect([...anchorsOf(page)]).toEqual([
      'the-life-of-an-operation',
      'states',
      'flink-lock',
      'states-1',
      'who-me-again',
    ]);
  });

  it('reports a citation of a missing section or page', () => {
    const docsPage = ['docs', 'lifecycle.md'].join('/');
    const text = `// see ${docsPage}#states, ${docsPage} "Who? Me, again." and ${docsPage}#drift-rule (${docsPage} "Drift rule"); ${['docs', 'nowhere.md'].join('/')}#states`;
    const anchors = (p: string) => (p === docsPage ? anchorsOf(page) : undefined);
    expect(broken(citationsIn('x.ts', text), anchors)).toEqual([
      `x.ts: ${docsPage} has no section #drift-rule`,
      `x.ts: ${['docs', 'nowhere.md'].join('/')} does not exist`,
      `x.ts: ${docsPage} has no section #drift-rule`,
    ]);
  });

  it('resolves links between docs relative to the linking page', () => {
    const text = '[a](policy.md#approvals) [b](#states) [c](../README.md#try-it) [d](https://example.com/x.md#y)';
    expect(citationsIn('docs/lifecycle.md', text, 'docs').map((c) => `${c.page}#${c.anchor}`)).toEqual([
      'docs/policy.md#approvals',
      'docs/lifecycle.md#states',
      'README.md#try-it',
    ]);
  });
});
