#!/usr/bin/env node
// Runs the built CLI when present (production images), else the TypeScript source through tsx (a checkout). In a
// checkout, the development subcommands (sandbox, sim-cluster) go to the simulators' package, packages/sim.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DEV_SUBCOMMANDS = ['sandbox', 'sim-cluster'];
const built = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const simCli = new URL('../packages/sim/src/cli.ts', import.meta.url);
const argv = process.argv.slice(2);
let cli;
if (DEV_SUBCOMMANDS.includes(argv[0] ?? '') && existsSync(fileURLToPath(simCli))) {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(simCli.href);
} else if (existsSync(built)) {
  cli = await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
cli.run(argv);
