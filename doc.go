// Package balloc is the Go API of the balloc simulator of balanced
// allocations (balls into bins). Import it as "github.com/balloc/balloc".
//
// A Config names a process of the catalogue (Processes) with its typed
// Params, or a Rule of your own, and the settings `balloc run` shares:
// bins, balls, trials, seed, engine, checkpoints (the gap over time, evenly
// or log-spaced), the potential's α, an initial start, the fluid limit
// beside each trial (Theory), and balls that leave (Supermarket,
// Deletions). NewSpec validates it before any work, with errors that name
// the Config field or parameter at fault. Spec.Run, RunParallel and Trial
// run trials under a context.Context: a cancelled run stops within a chunk
// of balls (a few milliseconds) and returns ctx.Err(); Config.Progress
// hears of each chunk.
//
// A built-in process runs the same loops as the balloc command: trial k
// of a Spec is, field for field, trial k of `balloc run --format json`
// with the same flags and --seed (Result's fields are the JSON's under Go
// names). Config.Seed is used as given, so its zero value is seed 0, while
// the command's default is DefaultSeed (1). A trial depends only on (Seed,
// trial number), so Run and RunParallel give the same results in the same
// order for any number of workers.
//
// A Rule makes one TrialRule per trial (NewTrial(trial)), which is asked
// for the bin of each ball with the ball's number and the loads; it may
// keep per-trial state without locks. It is called once per ball through
// an interface: it is for trying an idea, not for speed; the built-in
// processes keep their specialised kernels.
//
// What this package promises is its own names and behaviour: the
// processes and parameters are those of `balloc run --help`, and the
// internal packages (core, kernels, concurrency) may be reorganised
// without changing it.
package balloc
