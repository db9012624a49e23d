package kernels

// Lane names one of the independent streams a trial draws from, so that a
// kind of randomness a process adds (ball weights, say) never shifts the
// draws of another: a weighted run chooses bins exactly as the unweighted run
// with the same seed does.
type Lane uint64

const (
	LaneChoices   Lane = iota // bin samples and the process's own coins
	LaneWeights               // ball weights
	LaneNoise                 // noise on load information: coins, normals, ages
	LaneSchedule              // the interleaving of emulated concurrent workers
	LaneStructure             // random graphs and hypergraphs (per run, or per trial when redrawn)
)

// WorkerLane is the stream of concurrent worker w: its samples and coins.
func WorkerLane(w int) Lane { return Lane(1<<16 + uint64(w)) }

// TrialStream returns the generator of lane `lane` of trial `trial` of a run
// seeded with `seed`. The stream is a pure function of the triple, never of
// the worker that runs the trial, so results are identical for any number of
// workers.
//
// Both the PCG32 state and its stream selector are hashed from (seed, trial)
// with SplitMix64's finaliser (Steele, Lea, Flood 2014), so neighbouring seeds
// and trials land on unrelated states of unrelated increments; this avoids
// the correlations between PCG streams that differ only in the increment.
func TrialStream(seed, trial uint64, lane Lane) PCG32 {
	a := mix64(seed ^ 0x6a09e667f3bcc909)
	b := mix64(a ^ mix64(trial+0xbb67ae8584caa73b))
	b = mix64(b ^ mix64(uint64(lane)+0xa54ff53a5f1d36f1))
	c := mix64(b ^ 0x3c6ef372fe94f82b)
	return NewPCG32(b, c)
}

// mix64 is SplitMix64's output function: a bijection of uint64 with full
// avalanche.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
