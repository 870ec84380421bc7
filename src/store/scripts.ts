// The Lua scripts of ./lua: loaded into each ioredis connection once with defineCommand, then called by name.
import { readFileSync } from 'node:fs';
import type { RedisConnection } from './connection.js';

/** Script name → number of KEYS (fixed, so every key is declared and the scripts run on Redis Cluster). */
export const SCRIPTS = {
  commitOperation: 12,
  acquireLease: 3,
  extendLease: 1,
  releaseLease: 2,
  freeze: 2,
  unfreeze: 2,
  casDeliveryMark: 1,
  raiseRenderedSeq: 1,
  extendDeliveryLock: 1,
  releaseDeliveryLock: 1,
  paceChannel: 1,
  endAfterCompleted: 1,
  observeIncident: 3,
  appendAudit: 3,
  readAuditAfter: 1,
  advanceAuditPosition: 1,
  takeReadingTurn: 2,
} as const satisfies Record<string, number>;
export type ScriptName = keyof typeof SCRIPTS;

const LUA_DIR = new URL('./lua/', import.meta.url);
const INCLUDE = /^--\s*@include\s+([A-Za-z]+)\s*$/gm;

/** Command names carry our own prefix so they never clash with commands BullMQ defines on a shared connection. */
function commandName(name: ScriptName): string {
  return `fco_${name}`;
}

let sources: Map<ScriptName, string> | undefined;

function readSources(): Map<ScriptName, string> {
  const read = (file: string) => readFileSync(new URL(file, LUA_DIR), 'utf8');
  return new Map(
    (Object.keys(SCRIPTS) as ScriptName[]).map((name) => [
      name,
      read(`${name}.lua`).replace(INCLUDE, (_line, include: string) => read(`includes/${include}.lua`)),
    ]),
  );
}

const defined = new WeakSet<RedisConnection>();

/** Defines every script on `redis` (idempotent); call at startup to fail fast when a script file is missing. */
export function defineScripts(redis: RedisConnection): void {
  if (defined.has(redis)) return;
  sources ??= readSources();
  for (const [name, lua] of sources) redis.defineCommand(commandName(name), { numberOfKeys: SCRIPTS[name], lua });
  defined.add(redis);
}

type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

export async function runScript(
  redis: RedisConnection,
  name: ScriptName,
  keys: string[],
  args: (string | number)[],
): Promise<unknown> {
  if (keys.length !== SCRIPTS[name]) throw new Error(`script ${name} takes ${SCRIPTS[name]} keys, got ${keys.length}`);
  defineScripts(redis);
  const call = (redis as unknown as Record<string, ScriptCall>)[commandName(name)] as ScriptCall;
  return call.apply(redis, [...keys, ...args]);
}
