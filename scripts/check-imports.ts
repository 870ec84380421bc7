// `npm run lint`'s import check: src/ and packages/sim/src (when present) against the tables of
// scripts/import-rules.ts, no way around `import` the checker cannot follow, and no import cycles.
import { resolve } from 'node:path';
import { checkImports, projectRoots } from './import-rules.js';

const roots = projectRoots(resolve(import.meta.dirname, '..'));
const { modules, problems } = checkImports(roots);
const where = roots.map((root) => root.name).join(', ');
for (const problem of problems) console.error(problem.message);
if (problems.length > 0) {
  console.error(
    `\n${problems.length} import problem(s) in ${modules} modules (${where}); the rule is in scripts/import-rules.ts`,
  );
  process.exit(1);
}
console.log(`imports follow the layer tables, no cycles, in ${modules} modules (${where})`);
