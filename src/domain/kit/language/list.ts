// The `list` query's grammar (docs/commands.md#paging-through-list): an optional namespace, which page (`--page`, a
// number or `last`) and, with several clusters, whose pages (`--cluster`). verbs.ts puts it in the one table.
import { clusterProblem } from '../../model/target.js';
import { VALUE_KINDS, badValue, okValue, show, type ValueSpec } from './values.js';
import { PUBLIC, type VerbSpec } from './verb-kit.js';

/** Far above any real list (100 resources a page); a bound so that a typo of many digits is refused in words. */
export const MAX_LIST_PAGE = 10_000;
/** `--page last`: the last page of the cluster, whatever its number. */
export const LAST_PAGE = 'last';
export type ListPageNumber = number | typeof LAST_PAGE;

const PAGE: ValueSpec = {
  placeholder: '<n>',
  description: `a page number from 1 to ${MAX_LIST_PAGE} (default 1), or \`${LAST_PAGE}\``,
  example: '2',
  check: (text, _env, label) => {
    if (text.toLowerCase() === LAST_PAGE) return okValue(LAST_PAGE);
    if (/^[0-9]{1,12}$/.test(text)) {
      const n = Number(text);
      if (n >= 1 && n <= MAX_LIST_PAGE) return okValue(n);
    }
    return badValue(
      `${label} takes a page number from 1 to ${MAX_LIST_PAGE} or \`${LAST_PAGE}\`; got ${show(text)} (pages count from 1)`,
    );
  },
};

const CLUSTER: ValueSpec = {
  placeholder: '<cluster>',
  description: 'a cluster name, as `KUBE_CONTEXTS` lists it',
  example: 'eu',
  check: (text, _env, label) => {
    const cluster = text.toLowerCase();
    return clusterProblem(cluster) === undefined ? okValue(cluster) : badValue(`${label}: ${clusterProblem(text)}`);
  },
};

export const LIST_VERB: VerbSpec = {
  group: 'query',
  summary: 'the managed deployments and session jobs with their states, 100 a page, cluster by cluster',
  args: [
    {
      key: 'namespace',
      kind: VALUE_KINDS.namespace,
      required: false,
      description: 'only this namespace (default: every managed one)',
    },
  ],
  flags: [
    { name: 'page', key: 'page', kind: PAGE, description: 'which page to show; the answer has Next and Previous' },
    {
      name: 'cluster',
      key: 'cluster',
      kind: CLUSTER,
      description: "with several clusters: start at this cluster's pages (default: the first cluster)",
    },
    PUBLIC,
  ],
  examples: ['list', 'list analytics', 'list --page 3', 'list streaming-prod --cluster us --page last'],
  synonyms: ['ls', 'jobs', 'deployments'],
};
