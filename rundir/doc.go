// Package rundir owns a run's directory on disk: reserving it and its lock
// (ReserveRunDir, OpenRunDir, LockRunDir), writing a run as it goes (RunDir:
// each level's records go through the level file and are appended to
// requests.jsonl, then its row to levels.csv, each fsync'd as the level
// ends, and summary.json is replaced atomically, so an interrupted run
// leaves valid files), the record lines of requests.jsonl (written as each request ends;
// ReadRecords, EachRecord), reading a run back (ReadRunDir, ScanRunDir:
// SavedRun, whose records are the source of truth, every figure recomputed
// from them by report.Summarize), and a sharded run's shard.json and the
// pooling of its shards into one run (ShardInfo, CheckShards, PoolShards).
//
// The figures and their formats are package report's; rundir only stores
// and reads them back.
package rundir
