// The `logs` query's grammar (docs/commands.md#flink-logs): the target, which container (`--tm <n>`, default the
// JobManager), how many lines (`--lines`, 1–500, default 50) and a plain-text filter (`--grep`). verbs.ts puts it in
// the one table; the answer is always private (logs can contain data), so it takes no --public.
import { badValue, describeChar, okValue, show, wholeNumber, type ValueSpec } from './values.js';
import { TARGET, type VerbSpec } from './verb-kit.js';

export const DEFAULT_LOG_LINES = 50;
export const MAX_LOG_LINES = 500;
/** TaskManager numbers as the operator names the pods (`<name>-taskmanager-1-<n>`): 1 up to the largest parallelism. */
export const MAX_TASK_MANAGER = 32_768;
const MAX_GREP = 200;

const TM: ValueSpec = {
  placeholder: '<n>',
  description: `a TaskManager's number, as in the pod name \`<name>-taskmanager-1-<n>\` (1–${MAX_TASK_MANAGER})`,
  example: '1',
  check: (text, _env, label) => wholeNumber(text, 1, MAX_TASK_MANAGER, label),
};

const LINES: ValueSpec = {
  placeholder: '<n>',
  description: `a whole number from 1 to ${MAX_LOG_LINES} (default ${DEFAULT_LOG_LINES})`,
  example: '100',
  check: (text, _env, label) => wholeNumber(text, 1, MAX_LOG_LINES, label),
};

const GREP: ValueSpec = {
  placeholder: '<word>',
  description: 'plain text, not a pattern; case-insensitive; quote it when it has spaces',
  example: 'checkpoint',
  check: (text, _env, label) => {
    if (text.trim().length === 0) return badValue(`${label} needs the text to look for, e.g. ${label} checkpoint`);
    if (text.length > MAX_GREP) return badValue(`${label} is ${text.length} characters long; at most ${MAX_GREP}`);
    const bad = /[\p{Cc}\p{Cf}]/u.exec(text);
    if (bad) return badValue(`${label} ${show(text)} contains ${describeChar(bad[0])}`);
    return okValue(text);
  },
};

export const LOGS_VERB: VerbSpec = {
  group: 'query',
  summary:
    "the last lines of the target's JobManager (or a TaskManager) log, secrets masked; always answered only to you",
  args: [TARGET],
  flags: [
    { name: 'tm', key: 'tm', kind: TM, description: 'the log of this TaskManager instead of the JobManager' },
    { name: 'lines', key: 'lines', kind: LINES, description: 'how many lines to show, the last ones' },
    {
      name: 'grep',
      key: 'grep',
      kind: GREP,
      description: `only lines containing this text (searched in the last ${MAX_LOG_LINES} lines)`,
    },
  ],
  examples: [
    'logs analytics/clickstream',
    'logs clickstream --tm 2 --lines 100',
    'logs sessionjob:analytics/sessionizer --grep checkpoint',
  ],
  synonyms: ['log', 'tail', 'logfile', 'stdout'],
};
