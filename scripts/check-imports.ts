// `npm run lint`'s import check: src/ against the layer table of scripts/import-rules.ts, and no import cycles.
import { resolve } from 'node:path';
import { checkImports } from './import-rules.js';

const { modules, problems } = checkImports(resolve(import.meta.dirname, '..', 'src'));
for (const problem of problems) console.error(problem.message);
if (problems.length > 0) {
  console.error(`\n${problems.length} import problem(s) in ${modules} modules; the rule is in scripts/import-rules.ts`);
  process.exit(1);
}
console.log(`imports follow the layer table, no cycles, in ${modules} modules`);
