// Package sweep holds balloc's grids of experiments: a sweep file read and
// expanded into specs (ReadGrid, Expand, the one expansion balloc run's
// lists use too), its folder (Manifest, results.jsonl, the lock), a sweep
// opened to run or resume (Open: the trials already there skipped, this
// shard's still to run listed lazily by Jobs, the memory checked), the
// merge of a sharded sweep's folders, and Slurm job scripts. Running the
// trials is the caller's (core/engine.RunTrial, in any order and on any
// workers: a trial is a function of its spec, seed and index).
package sweep
