// Flink configuration keys that decide where a job's state lives (docs/policy.md#state-directories): checkpoints,
// savepoints, high-availability metadata, the path a job restores from, and the local copies of its state.

/**
 * The keys (current names and the deprecated ones Flink still reads) that move state, from Flink's CheckpointingOptions,
 * StateRecoveryOptions, HighAvailabilityOptions, the RocksDB, ForSt and changelog options and the job result store.
 */
const STATE_LOCATION_KEYS: ReadonlySet<string> = new Set([
  'execution.checkpointing.dir',
  'state.checkpoints.dir',
  'state.backend.fs.checkpointdir',
  'execution.checkpointing.savepoint-dir',
  'state.savepoints.dir',
  'savepoints.state.backend.fs.dir',
  'execution.checkpointing.storage',
  'state.checkpoint-storage',
  'execution.checkpointing.local-backup.dirs',
  'taskmanager.state.local.root-dirs',
  'execution.state-recovery.path',
  'execution.savepoint.path',
  'high-availability.storageDir',
  'high-availability.zookeeper.storageDir',
  'high-availability.cluster-id',
  'high-availability.zookeeper.path.root',
  'high-availability.zookeeper.path.namespace',
  'job-result-store.storage-path',
  'state.backend.rocksdb.localdir',
  'state.changelog.dstl.dfs.base-path',
  'process.working-dir',
  'process.taskmanager.working-dir',
  'process.jobmanager.working-dir',
]);

/** Families where a key whose last word is a directory or path moves state too (`state.backend.forst.primary-dir`). */
const STATE_FAMILIES = ['state.', 'execution.checkpointing.', 'high-availability.', 'execution.state-recovery.'];
const LOCATION_WORD = /(?:^|[-_])(?:dirs?|path|storagedir|base-path)$/;

/** Whether setting or unsetting `key` changes where the job's state is written or read from. */
export function movesState(key: string): boolean {
  if (STATE_LOCATION_KEYS.has(key)) return true;
  if (!STATE_FAMILIES.some((family) => key.startsWith(family))) return false;
  const last = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
  return LOCATION_WORD.test(last);
}
