package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/pflag"

	"github.com/balloc/balloc/core/sweep"
)

// A bad input is refused before any work: exit 2, nothing on stdout, and
// exactly one line on stderr that names the culprit (a flag, a TOML key, a
// file). The table is generated: every flag of every command (read from the
// command tree, so a new flag without an entry here fails the test) gets an
// empty value, a second copy, and the malformed, out-of-range and overflowing
// values of its kind; then files, folders and TOML keys. Only inputs whose
// right answer is exit 2 are in it.

// badCase is one bad input.
type badCase struct {
	name   string
	args   []string
	want   string   // the culprit, as the error line must name it
	keep   []string // files that must be left as they were: bytes, mode and type
	absent []string // paths the refusal must not create
	most   int      // the longest the error line may be (0: no bound)
}

// flagKind is how a flag's values are checked, and so which values are bad.
type flagKind int

const (
	kCount1  flagKind = iota // an integer ≥ 1
	kCount0                  // an integer ≥ 0
	kReal                    // a real number
	kEnum                    // one of some names
	kBool                    // true or false, standing alone means true
	kSpec                    // a process, weights, noise, graph or hypergraph
	kPathIn                  // a file that is read
	kPathOut                 // a file that is written
	kDirOut                  // a folder that is written
	kText                    // any text
	kSpecial                 // a value of its own format (--shard, --partition, --time)
)

// flagInfo describes one flag: its kind, a legal value, and, for the run
// command's process flags, the base command in which its value matters.
type flagInfo struct {
	kind  flagKind
	legal string
	base  []string // flag, value pairs replacing (or, with value "-", removing) the command's base
	bad   []string // bad values of this flag beyond its kind's
	pos   []string // positional arguments replacing the command's base ones
}

// fixtures are the files and folders the bad inputs refer to.
type fixtures struct {
	dir, toml, otherToml, sweep, otherSweep, foreign, graph, hyper, ages, replay, emptyDir, regular, compare string
	pairSweep                                                                                                string // two processes at two n, with checkpoints: summarize --crossover and --gap-from
}

func newFixtures(t *testing.T) *fixtures {
	dir := t.TempDir()
	f := &fixtures{dir: dir, toml: filepath.Join(dir, "s.toml"), otherToml: filepath.Join(dir, "o.toml"),
		sweep: filepath.Join(dir, "sw"), otherSweep: filepath.Join(dir, "osw"), foreign: filepath.Join(dir, "foreign"), graph: filepath.Join(dir, "g.txt"),
		hyper: filepath.Join(dir, "h.txt"), ages: filepath.Join(dir, "ages.txt"), replay: filepath.Join(dir, "replay.txt"), emptyDir: filepath.Join(dir, "empty"),
		regular: filepath.Join(dir, "regular"), compare: filepath.Join(dir, "ref.toml"), pairSweep: filepath.Join(dir, "pairs")}
	writeFile(t, filepath.Join(dir, "pairs.toml"), "processes = [\"two-choice\", \"one-choice\"]\nbins = [4, 8]\nballs_per_bin = [4]\ntrials = 2\ncheckpoints = 2\n")
	writeFile(t, f.toml, "processes = [\"two-choice\"]\nbins = [4]\nballs = [8]\ntrials = 2\n")
	writeFile(t, f.otherToml, "processes = [\"one-choice\"]\nbins = [4]\nballs = [8]\ntrials = 2\n")
	writeFile(t, f.graph, "0 1\n1 2\n2 0\n")
	writeFile(t, f.hyper, "0 1\n1 2 3\n")
	writeFile(t, f.ages, "0 1\n1 2\n")
	writeFile(t, f.replay, "0\n1\n0\n2\n1\n0\n3\n0\n") // one age for each of the 8 balls
	writeFile(t, f.regular, "not a folder\n")
	writeFile(t, filepath.Join(dir, "adv.seq"), "+ 4\n- 1..4/2\n")
	writeFile(t, f.compare, "[[ref]]\nprocess = \"two-choice\"\ngap_mean = 1\n")
	if err := os.Mkdir(f.emptyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range [][2]string{{f.toml, f.sweep}, {f.otherToml, f.otherSweep}, {f.otherToml, f.foreign}, {filepath.Join(dir, "pairs.toml"), f.pairSweep}} {
		if code := Main([]string{"sweep", s[0], "--out", s[1], "--progress", "never"}, io.Discard, io.Discard); code != 0 {
			t.Fatalf("fixture sweep %s: exit %d", s[0], code)
		}
	}
	return f
}

// clearOutputs removes what the legal invocations write, so that the next
// one may write it again without --force.
func (f *fixtures) clearOutputs() {
	for _, n := range []string{"r.png", "p.png", "q.svg", "c.pprof", "m.pprof", "t.out", "cc.pprof", "cm.pprof", "ct.out", "saved-ages.txt"} {
		os.Remove(filepath.Join(f.dir, n))
	}
	for _, n := range []string{"sl", "sl2"} {
		os.RemoveAll(filepath.Join(f.dir, n))
	}
}

// commandBase is a legal, tiny invocation of each command: positional
// arguments, then flag/value pairs.
func commandBase(f *fixtures) map[string]struct{ pos, flags []string } {
	return map[string]struct{ pos, flags []string }{
		"run":              {nil, []string{"--process", "two-choice", "--bins", "4", "--balls", "8", "--progress", "never"}},
		"sweep":            {[]string{f.toml}, []string{"--out", filepath.Join(f.dir, "new"), "--progress", "never"}},
		"summarize":        {[]string{f.sweep}, nil},
		"plot":             {[]string{f.sweep}, []string{"--kind", "gap-distribution", "--out", filepath.Join(f.dir, "p.png")}},
		"merge":            {[]string{f.sweep}, []string{"--out", filepath.Join(f.dir, "merged")}},
		"slurm":            {[]string{f.toml}, []string{"--tasks", "2", "--out", filepath.Join(f.dir, "sl")}},
		"concurrent":       {nil, []string{"--process", "two-choice", "--bins", "4", "--balls", "8"}},
		"graph-stats":      {nil, []string{"--graph", "cycle:8"}},
		"hypergraph-stats": {nil, []string{"--hyperedges", "random:4,2", "--bins", "8"}},
		"haar-info":        {nil, []string{"--graph", "cycle:8"}},
		"optimal":          {nil, []string{"--process", "two-thinning", "--bins", "4", "--balls", "4", "--trials", "10"}},
		"adversary":        {nil, []string{"--builtin", "alternate:8", "--bins", "4", "--trials", "3"}},
		"info":             {nil, nil},
		"version":          {nil, nil},
		"completion":       {[]string{"bash"}, nil},
	}
}

// flagTable says, per command and flag ("cmd/flag", or "flag" for every
// command that has it), what the flag takes.
func flagTable(f *fixtures) map[string]flagInfo {
	idea := []string{"--process", "idea"}
	haar := []string{"--process", "graphical", "--graph", "cycle:8", "--strategy", "haar", "--bins", "-"}
	graphical := []string{"--process", "graphical", "--graph", "cycle:8", "--bins", "-"}
	hyper := []string{"--process", "hypergraph", "--hyperedges", "random:4,2", "--bins", "8"}
	kp := []string{"--process", "kp-groups", "--group-size", "2"}
	tau := []string{"--process", "tau-delay", "--tau", "2"}
	notDir := filepath.Join(f.regular, "sub")
	return map[string]flagInfo{
		"run/process":       {kind: kSpec, legal: "two-choice", bad: []string{"nope", "two-choice,", ",two-choice", "two-choice,two-choice", "TWO-CHOICE"}},
		"run/bins":          {kind: kCount1, legal: "4", bad: []string{"2^51", "1e300"}},
		"run/balls":         {kind: kCount0, legal: "8"},
		"run/balls-per-bin": {kind: kCount0, legal: "2", base: []string{"--balls", "-"}},
		"run/d":             {kind: kCount1, legal: "2", base: []string{"--process", "d-choice"}, bad: []string{"5", "2,2"}},
		"run/beta":          {kind: kReal, legal: "0.5", base: []string{"--process", "one-plus-beta"}, bad: []string{"-0.1", "1.01", "0.5,0.5"}},
		"run/threshold":     {kind: kReal, legal: "1", base: []string{"--process", "two-thinning"}},
		"run/k":             {kind: kCount1, legal: "3", base: []string{"--process", "k-thinning", "--thresholds", "quantile"}, bad: []string{"1", "65", "3,3"}},
		"run/thresholds":    {kind: kSpec, legal: "1", base: []string{"--process", "k-thinning"}, bad: []string{"0.5,1", "quantile,1", "1,NaN", "1e16", "abc", "Quantile"}},
		"run/delta":         {kind: kReal, legal: "0.5", base: []string{"--process", "quantile"}, bad: []string{"-0.1", "1.5", "0.5,0.5"}},
		"run/deltas":        {kind: kSpec, legal: "0.5,0.25", base: []string{"--process", "k-quantile"}, bad: []string{"0,0.5", "0.5,0.5", "1.5", "0.5,x", "0.3,0.26", "NaN", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"}},
		"run/offsets":       {kind: kSpec, legal: "0,1", base: []string{"--process", "k-threshold"}, bad: []string{"1,1", "1,x", "1e16", "NaN", "inf"}},
		"run/eta":           {kind: kReal, legal: "0.5", base: []string{"--process", "mixed-quantile", "--delta", "0.5"}, bad: []string{"-0.1", "1.5", "0.5,0.5"}},
		"run/cache-rule":    {kind: kEnum, legal: "last-used", base: []string{"--process", "memory"}, bad: []string{"last-used,last-used"}},
		"run/weights": {kind: kSpec, legal: "exp:1", bad: []string{"nope", "exp", "exp:", "exp:0", "exp:-1", "exp:NaN", "exp:inf", "const:0", "const:-1",
			"const:abc", "uniform:1", "uniform:2,1", "uniform:0,0", "pareto:2", "pareto:1e400", "exp:1,exp:2"}},
		"run/g":           {kind: kReal, legal: "1", base: []string{"--process", "g-adv-comp"}, bad: []string{"-1", "1e16", "1,1"}},
		"run/adversary":   {kind: kEnum, legal: "random", base: []string{"--process", "g-adv-comp", "--g", "1"}, bad: []string{"random,random"}},
		"run/ties":        {kind: kEnum, legal: "index", bad: []string{"index,index", "lowest"}},
		"run/distinct":    {kind: kBool, legal: "true", bad: []string{"true,true", "yes"}},
		"run/sampling":    {kind: kSpec, legal: "zipf:1", bad: []string{"zipf", "zipf:-1", "zipf:x", "twoclass:0.5", "twoclass:1,2", "twoclass:0.5,0", "uniform:1", "file:", "file:" + filepath.Join(f.dir, "absent"), "file:" + f.graph, "file:" + f.replay}},
		"run/sigma":       {kind: kReal, legal: "1", base: []string{"--process", "sigma-noisy-load"}, bad: []string{"-1"}},
		"run/rho":         {kind: kSpec, legal: "gauss:1", base: []string{"--process", "rho-noisy-comp"}, bad: []string{"nope", "gauss", "gauss:-1", "logistic:abc", "step:1", "step:1,2", "step:-1,0.5", "gauss:NaN"}},
		"run/tau":         {kind: kCount0, legal: "2", base: tau, bad: []string{"2^32", "4294967295", "2,2"}},
		"run/delay":       {kind: kEnum, legal: "uniform", base: tau, bad: []string{"uniform,uniform"}},
		"run/ages":        {kind: kPathIn, legal: f.ages, base: []string{"--process", "tau-delay", "--delay", "empirical"}},
		"run/replay":      {kind: kPathIn, legal: f.replay, base: []string{"--process", "tau-delay", "--delay", "replay"}},
		"run/batch":       {kind: kCount1, legal: "2", base: []string{"--process", "b-batch"}},
		"run/retries":     {kind: kCount1, legal: "2", base: idea, bad: []string{"2^20+1", "1048577"}},
		"run/variant":     {kind: kEnum, legal: "oracle", base: idea},
		"run/sample-size": {kind: kCount0, legal: "2", base: append(slices.Clone(idea), "--variant", "sampling"), bad: []string{"1048577"}},
		"run/sample-rule": {kind: kEnum, legal: "rounded", base: append(slices.Clone(idea), "--variant", "sampling")},
		"run/held":        {kind: kEnum, legal: "carry", base: idea},
		"run/dims":        {kind: kCount1, legal: "2", base: idea, bad: []string{"65"}},
		"run/populated":   {kind: kCount1, legal: "1", base: append(slices.Clone(idea), "--dims", "2"), bad: []string{"3"}},
		"run/vector-gap":  {kind: kEnum, legal: "all", base: append(slices.Clone(idea), "--dims", "2")},
		"run/rounds":      {kind: kCount1, legal: "3", base: []string{"--process", "rbb"}, bad: []string{"3,3"}},
		"run/lambda":      {kind: kReal, legal: "0.5", base: []string{"--process", "leaky", "--rounds", "3"}, bad: []string{"0", "1", "-0.2", "0.5,0.5"}},
		"run/placement":   {kind: kEnum, legal: "d-choice", base: []string{"--process", "rbb", "--rounds", "3"}, bad: []string{"one-choice,one-choice"}},
		"run/initial": {kind: kSpec, legal: "spike:4", bad: []string{"nope", "uniform", "spike", "zero:1", "uniform:", "uniform:-1", "spike:abc", "spike:1e3", "uniform:4611686018427387904",
			"file:", "file:" + filepath.Join(f.dir, "missing"), "file:" + f.dir, "file:" + f.ages, "file:" + f.replay, "file:/dev/null", "spike:4,spike:4", "fixed-point", "fixed-point:1"}},
		"run/graph": {kind: kSpec, legal: "cycle:8", base: graphical, bad: []string{"nope", "cycle", "cycle:", "cycle:0", "cycle:-1", "cycle:abc", "cycle:2^64",
			"torus:", "torus:0,4", "hypercube:-1", "complete:1e400", "random-regular:8,9", "erdos-renyi:8,2", "erdos-renyi:8,NaN",
			"joined-expanders:16,3", "joined-expanders:15,3,2", "joined-expanders:16,2,2", "joined-expanders:16,3,3", "joined-expanders:16,3,8", "joined-expanders:16,3,2,x",
			"file:" + filepath.Join(f.dir, "missing"), "file:" + f.dir, "file:/dev/null", "file:" + f.toml}},
		"run/strategy":    {kind: kEnum, legal: "greedy", base: graphical},
		"run/stale":       {kind: kCount0, legal: "2", base: haar},
		"run/haar-scale":  {kind: kEnum, legal: "unit", base: haar},
		"run/haar-route":  {kind: kEnum, legal: "set", base: haar},
		"run/graph-clean": {kind: kEnum, legal: "drop", base: []string{"--process", "graphical", "--graph", "file:" + f.graph, "--bins", "-"}},
		"run/group-size":  {kind: kCount1, legal: "2", base: []string{"--process", "kp-groups"}, bad: []string{"5"}},
		"run/c":           {kind: kReal, legal: "1.25", base: []string{"--process", "bounded-hashing"}, bad: []string{"1", "0.5", "-2", "5e9", "1.25,1.25", "1e400", "NaN"}},
		"run/vnodes":      {kind: kCount1, legal: "3", base: []string{"--process", "bounded-hashing", "--c", "1.25"}, bad: []string{"2^31", "3,3"}},
		"run/aligned":     {kind: kBool, legal: "false", base: kp},
		"run/group-rule":  {kind: kEnum, legal: "min", base: kp},
		"run/hyperedges": {kind: kSpec, legal: "random:4,2", base: hyper, bad: []string{"nope", "random", "random:0,2", "random:4,0", "random:4,9", "random:abc,2", "intervals:0", "intervals:9",
			"file:" + filepath.Join(f.dir, "missing"), "file:" + f.dir, "file:/dev/null", "file:" + f.toml}},
		"run/probe-all":   {kind: kBool, legal: "true", base: hyper},
		"run/refresh":     {kind: kCount0, legal: "2", base: hyper},
		"run/trials":      {kind: kCount1, legal: "2"},
		"run/seed":        {kind: kCount0, legal: "3"},
		"run/engine":      {kind: kEnum, legal: "direct", bad: []string{"direct,histogram"}},
		"run/checkpoints": {kind: kCount0, legal: "2", bad: []string{"1001"}},
		"run/alpha":       {kind: kReal, legal: "2"},
		"run/theory":      {kind: kBool, legal: "true"},
		"run/format":      {kind: kEnum, legal: "json", bad: []string{"json,csv"}},
		"run/loads":       {kind: kBool, legal: "true", base: []string{"--format", "json"}},
		"run/plot":        {kind: kPathOut, legal: filepath.Join(f.dir, "r.png"), base: []string{"--checkpoints", "2"}, bad: []string{filepath.Join(f.dir, "r.jpg"), filepath.Join(f.dir, "r")}},
		"run/plot-kind":   {kind: kEnum, legal: "gap-distribution", base: []string{"--plot", filepath.Join(f.dir, "r.png")}},
		"run/title":       {kind: kText, legal: "a title", base: []string{"--plot", filepath.Join(f.dir, "r.png"), "--plot-kind", "gap-distribution"}},
		"run/log-x":       {kind: kBool, legal: "true", base: []string{"--plot", filepath.Join(f.dir, "r.png"), "--checkpoints", "2"}},
		"run/log-y":       {kind: kBool, legal: "true", base: []string{"--plot", filepath.Join(f.dir, "r.png"), "--checkpoints", "2", "--balls", "11"}}, // every gap > 0
		"run/bands":       {kind: kBool, legal: "true", base: []string{"--plot", filepath.Join(f.dir, "r.png"), "--checkpoints", "2"}},
		"run/linear-y":    {kind: kBool, legal: "true", base: []string{"--plot", filepath.Join(f.dir, "r.png"), "--checkpoints", "2"}},
		"run/x":           {kind: kEnum, legal: "g", base: []string{"--plot", filepath.Join(f.dir, "r.png"), "--plot-kind", "gap-vs-param", "--process", "g-adv-comp", "--g", "0,1"}, bad: []string{"nope"}},
		"run/y":           {kind: kEnum, legal: "max-gap", base: []string{"--plot", filepath.Join(f.dir, "r.png"), "--plot-kind", "gap-vs-param", "--process", "g-adv-comp", "--g", "0,1"}, bad: []string{"max_gap"}},
		"run/workers":     {kind: kCount0, legal: "1"},
		"run/progress":    {kind: kEnum, legal: "never"},
		"run/cpuprofile":  {kind: kPathOut, legal: filepath.Join(f.dir, "c.pprof")},
		"run/memprofile":  {kind: kPathOut, legal: filepath.Join(f.dir, "m.pprof")},
		"run/trace":       {kind: kPathOut, legal: filepath.Join(f.dir, "t.out")},
		"run/force":       {kind: kBool, legal: "true"},

		"sweep/out":      {kind: kDirOut, legal: filepath.Join(f.dir, "new2"), bad: []string{notDir, f.regular, f.otherSweep}},
		"sweep/shard":    {kind: kSpecial, legal: "0/2", base: []string{"--out", filepath.Join(f.dir, "shard")}, bad: []string{"abc", "1/0", "2/2", "-1/2", "1/2/3", "1/", "/2", "1.5/2", "0/2^64"}},
		"sweep/workers":  {kind: kCount0, legal: "1"},
		"sweep/progress": {kind: kEnum, legal: "never"},

		"summarize/format":    {kind: kEnum, legal: "csv", bad: []string{"csv,latex", "json"}},
		"summarize/compare":   {kind: kPathIn, legal: f.compare, bad: []string{f.toml, f.regular}}, // a sweep file, not TOML
		"summarize/gap-from":  {kind: kReal, legal: "0.5", pos: []string{f.pairSweep}, bad: []string{"1", "-0.1", "2"}},
		"summarize/crossover": {kind: kText, legal: "process=two-choice,one-choice", pos: []string{f.pairSweep}, bad: []string{"process", "process=a,a", "process=a,b,c", "process=two-choice,d-choice", "=a,b"}},

		"plot/kind":   {kind: kEnum, legal: "gap-vs-bins"},
		"plot/force":  {kind: kBool, legal: "true"},
		"plot/out":    {kind: kPathOut, legal: filepath.Join(f.dir, "q.svg"), bad: []string{filepath.Join(f.dir, "q.jpg"), filepath.Join(f.dir, "q"), f.dir}},
		"plot/title":  {kind: kText, legal: "a title"},
		"plot/log-x":  {kind: kBool, legal: "true", base: []string{"--kind", "gap-vs-bins"}},
		"plot/log-y":  {kind: kBool, legal: "true", base: []string{"--kind", "load-histogram"}},
		"plot/bands":  {kind: kBool, legal: "true", base: []string{"--kind", "gap-vs-bins"}},
		"plot/theory": {kind: kBool, legal: "true", base: []string{"--kind", "load-histogram"}},
		"plot/x":      {kind: kEnum, legal: "bins", base: []string{"--kind", "gap-vs-param"}},
		"plot/y":      {kind: kEnum, legal: "max-gap", base: []string{"--kind", "gap-vs-param", "--x", "bins"}},

		"plot/linear-y": {kind: kBool, legal: "true", base: []string{"--kind", "gap-vs-bins"}},

		"merge/out": {kind: kDirOut, legal: filepath.Join(f.dir, "merged2"), bad: []string{f.sweep, f.foreign, notDir, f.regular}},

		"slurm/tasks":     {kind: kCount1, legal: "2", bad: []string{"100001"}},
		"slurm/out":       {kind: kDirOut, legal: filepath.Join(f.dir, "sl2"), bad: []string{notDir, f.regular, filepath.Join(f.dir, "a\nb")}},
		"slurm/partition": {kind: kSpecial, legal: "debug", bad: []string{"x\ntouch PWNED", "a b", "a;b", "a,,b", "$(id)", "a`id`", "a'b", "a\"b", "#x"}},
		"slurm/time":      {kind: kSpecial, legal: "02:00:00", bad: []string{"bogus", "1:2:3:4", "1-2-3", "-5", "1e3", "1h", "02:00:00\nid", "02:00 #x", "1-", "-1-2", ":5", "5:"}},
		"slurm/cpus":      {kind: kCount1, legal: "2", bad: []string{"65536", "2^20"}},
		"slurm/force":     {kind: kBool, legal: "true"},

		"concurrent/process":       {kind: kSpec, legal: "two-choice", bad: []string{"nope", "always-go-left", "tau-delay", "two-choice,one-choice"}},
		"concurrent/bins":          {kind: kCount1, legal: "4", bad: []string{"2^51"}},
		"concurrent/balls":         {kind: kCount0, legal: "8", bad: []string{"2^32"}},
		"concurrent/d":             {kind: kCount1, legal: "2", base: []string{"--process", "d-choice"}, bad: []string{"5"}},
		"concurrent/beta":          {kind: kReal, legal: "0.5", base: []string{"--process", "one-plus-beta"}, bad: []string{"-0.1", "1.5"}},
		"concurrent/threshold":     {kind: kReal, legal: "1", base: []string{"--process", "two-thinning"}},
		"concurrent/g":             {kind: kReal, legal: "1", base: []string{"--process", "g-myopic-comp"}, bad: []string{"-1"}},
		"concurrent/arrival-rate":  {kind: kReal, legal: "0.5", base: []string{"--balls", "-", "--time", "2"}, bad: []string{"0", "1", "-0.5", "1.5"}},
		"concurrent/time":          {kind: kReal, legal: "2", base: []string{"--balls", "-", "--arrival-rate", "0.5"}, bad: []string{"0", "-1", "1e16"}},
		"concurrent/events":        {kind: kCount1, legal: "100", base: []string{"--balls", "-", "--arrival-rate", "0.5"}},
		"concurrent/warmup":        {kind: kReal, legal: "1", base: []string{"--balls", "-", "--arrival-rate", "0.5", "--time", "2"}, bad: []string{"-1", "2", "3"}},
		"concurrent/workers":       {kind: kCount0, legal: "1"},
		"concurrent/scaling":       {kind: kCount1, legal: "1,2", bad: []string{"1,0", "1,2,", "1,abc"}},
		"concurrent/emulate":       {kind: kCount1, legal: "2"},
		"concurrent/save-ages":     {kind: kPathOut, legal: filepath.Join(f.dir, "saved-ages.txt"), base: []string{"--emulate", "2"}},
		"concurrent/trace-ages":    {kind: kBool, legal: traceLegal()},
		"concurrent/mode":          {kind: kEnum, legal: "cas"},
		"concurrent/batch":         {kind: kCount1, legal: "2", base: []string{"--mode", "local-batch"}},
		"concurrent/layout":        {kind: kEnum, legal: "padded"},
		"concurrent/measure-every": {kind: kCount0, legal: "2"},
		"concurrent/seed":          {kind: kCount0, legal: "2"},
		"concurrent/trials":        {kind: kCount1, legal: "1"},
		"concurrent/compare":       {kind: kBool, legal: "false"},
		"concurrent/progress":      {kind: kEnum, legal: "never"},
		"concurrent/format":        {kind: kEnum, legal: "json"},
		"concurrent/cpuprofile":    {kind: kPathOut, legal: filepath.Join(f.dir, "cc.pprof")},
		"concurrent/memprofile":    {kind: kPathOut, legal: filepath.Join(f.dir, "cm.pprof")},
		"concurrent/trace":         {kind: kPathOut, legal: filepath.Join(f.dir, "ct.out")},
		"concurrent/force":         {kind: kBool, legal: "true"},

		"graph-stats/graph":       {kind: kSpec, legal: "cycle:8", bad: []string{"nope", "cycle:0", "cycle:abc", "torus:", "joined-expanders:16,3,0", "joined-expanders:16,9,2", "file:" + filepath.Join(f.dir, "missing"), "file:" + f.dir, "file:/dev/null"}},
		"graph-stats/seed":        {kind: kCount0, legal: "2"},
		"graph-stats/graph-clean": {kind: kEnum, legal: "drop", base: []string{"--graph", "file:" + f.graph}},

		"hypergraph-stats/hyperedges":  {kind: kSpec, legal: "random:4,2", bad: []string{"nope", "random:0,2", "random:4,9", "intervals:0", "file:" + filepath.Join(f.dir, "missing"), "file:" + f.dir, "file:/dev/null"}},
		"hypergraph-stats/bins":        {kind: kCount1, legal: "8"},
		"hypergraph-stats/d":           {kind: kCount1, legal: "2", bad: []string{"3"}},
		"hypergraph-stats/balls":       {kind: kCount0, legal: "8"},
		"hypergraph-stats/refresh":     {kind: kCount0, legal: "2"},
		"hypergraph-stats/samples":     {kind: kCount0, legal: "10"},
		"hypergraph-stats/seed":        {kind: kCount0, legal: "2"},
		"hypergraph-stats/graph-clean": {kind: kEnum, legal: "drop", base: []string{"--hyperedges", "file:" + f.hyper, "--bins", "-"}},

		"haar-info/graph":       {kind: kSpec, legal: "cycle:8", bad: []string{"nope", "cycle:0", "path:1", "joined-expanders:16,3,3", "erdos-renyi:100,0.01", "file:" + filepath.Join(f.dir, "missing"), "file:/dev/null"}},
		"haar-info/haar-route":  {kind: kEnum, legal: "set"},
		"haar-info/haar-scale":  {kind: kEnum, legal: "unit"},
		"haar-info/seed":        {kind: kCount0, legal: "2"},
		"haar-info/measure":     {kind: kCount0, legal: "2", bad: []string{"2^31"}},
		"haar-info/graph-clean": {kind: kEnum, legal: "drop", base: []string{"--graph", "file:" + f.graph}},
		"optimal/process":       {kind: kEnum, legal: "k-thinning", bad: []string{"two-choice"}},
		"optimal/bins":          {kind: kCount1, legal: "3", bad: []string{"2^32"}},
		"optimal/balls":         {kind: kCount0, legal: "3", bad: []string{"2^16+1", "65536"}},
		"optimal/k":             {kind: kCount1, legal: "3", base: []string{"--process", "k-thinning"}, bad: []string{"1", "65"}},
		"optimal/rule":          {kind: kEnum, legal: "absolute"},
		"optimal/theta-max":     {kind: kReal, legal: "1.5", bad: []string{"1e7"}},
		"optimal/trials":        {kind: kCount0, legal: "5"},
		"optimal/seed":          {kind: kCount0, legal: "2"},

		// balloc adversary (core/adversary).
		"adversary/sequence":    {kind: kPathIn, legal: filepath.Join(f.dir, "adv.seq"), base: []string{"--builtin", "-"}, bad: []string{f.regular, f.replay}},
		"adversary/builtin":     {kind: kSpec, legal: "refill:6", bad: []string{"alternate", "alternate:1", "sliding:4", "nope:4", "random-half:4,x"}},
		"adversary/bins":        {kind: kCount1, legal: "3", bad: []string{"2^31+1"}},
		"adversary/rules":       {kind: kEnum, legal: "greedy,one-choice", bad: []string{"greedy,greedy", "Greedy"}},
		"adversary/width":       {kind: kCount1, legal: "3", bad: []string{"2^30+1"}},
		"adversary/trials":      {kind: kCount1, legal: "2"},
		"adversary/seed":        {kind: kCount0, legal: "2"},
		"adversary/checkpoints": {kind: kCount0, legal: "2", bad: []string{"2^20+1"}},
		"adversary/workers":     {kind: kCount0, legal: "2", bad: []string{"2^16+1"}},

		// Balls that leave (core/dynamic.go).
		"run/arrival-rate":      {kind: kReal, legal: "0.5", base: []string{"--balls", "-", "--time", "2"}, bad: []string{"0", "1", "-0.5", "1.5"}},
		"run/time":              {kind: kReal, legal: "2", base: []string{"--balls", "-", "--arrival-rate", "0.5"}, bad: []string{"0", "-1", "1e16"}},
		"run/events":            {kind: kCount1, legal: "100", base: []string{"--balls", "-", "--arrival-rate", "0.5"}},
		"run/warmup":            {kind: kReal, legal: "1", base: []string{"--balls", "-", "--arrival-rate", "0.5", "--time", "2"}, bad: []string{"-1", "2", "3"}},
		"run/update-period":     {kind: kReal, legal: "1", base: []string{"--balls", "-", "--arrival-rate", "0.5", "--time", "2"}, bad: []string{"-1", "1e16", "0.01"}},
		"run/update-delay":      {kind: kReal, legal: "1", base: []string{"--balls", "-", "--arrival-rate", "0.5", "--time", "2"}, bad: []string{"-1", "1e16"}},
		"run/update-individual": {kind: kReal, legal: "1", base: []string{"--balls", "-", "--arrival-rate", "0.5", "--time", "2"}, bad: []string{"-1", "1e16", "1e-6"}},
		"run/delete-prob":       {kind: kReal, legal: "0.3", bad: []string{"-0.1", "1", "1.5"}},
		"run/delete":            {kind: kEnum, legal: "bin", base: []string{"--delete-prob", "0.3"}},
		"run/phases":            {kind: kSpecial, legal: "+30,-10,+20", base: []string{"--balls", "-"}, bad: []string{"30,-10", "+0", "+-3", "+1e3,,-2", "+x", "+2^63", "+1,-", "abc"}},
	}
}

// kindBad are the bad values every flag of a kind shares.
var kindBad = map[flagKind][]string{
	kCount1:  {"0", "-1", "abc", "1e400", "2^64", "18446744073709551616", "1.5", "NaN", "inf", "1,,2", "1e", "0x10", "+-1"},
	kCount0:  {"-1", "abc", "1e400", "2^64", "18446744073709551616", "1.5", "NaN", "inf", "1,,2", "1e", "0x10", "+-1"},
	kReal:    {"abc", "NaN", "nan", "1e400", "-1e400", "inf", "-Inf", "1,,2", "1e", "0x", "1..2"},
	kEnum:    {"abc", "NaN", "1,,2", ",", "x\ny"},
	kBool:    {"maybe", "2", "yes please"},
	kSpec:    {"x\ny", ",", "1,,2"},
	kPathIn:  {"/nonexistent/balloc/x"},
	kPathOut: {"REGULAR/x.png"}, // under a file: no folder can be made there
	kDirOut:  {"/dev/null"},
}

// with is base with the pairs of mods applied: a pair replaces the flag's
// value, or removes the flag when the value is "-", or is appended.
func with(base, mods []string) []string {
	out := slices.Clone(base)
	for i := 0; i+1 < len(mods); i += 2 {
		k, v := mods[i], mods[i+1]
		j := slices.Index(out, k)
		switch {
		case j >= 0 && v == "-":
			out = slices.Delete(out, j, j+2)
		case j >= 0:
			out[j+1] = v
		case v != "-":
			out = append(out, k, v)
		}
	}
	return out
}

// flagArgs writes a flag and its value as a user would: flags that may stand
// alone need "=".
func flagArgs(name, value string, kind flagKind) []string {
	if kind == kBool {
		return []string{"--" + name + "=" + value}
	}
	return []string{"--" + name, value}
}

// badCases builds the table.
func badCases(t *testing.T, f *fixtures) []badCase {
	bases := commandBase(f)
	table := flagTable(f)
	var cases []badCase
	add := func(c badCase) { cases = append(cases, c) }
	root := newRoot(io.Discard, io.Discard)
	for _, cmd := range root.Commands() {
		name := cmd.Name()
		base, ok := bases[name]
		if !ok {
			t.Errorf("no base invocation for command %s: add it to commandBase", name)
			continue
		}
		cmd.Flags().VisitAll(func(fl *pflag.Flag) {
			info, ok := table[name+"/"+fl.Name]
			if !ok {
				t.Errorf("flag --%s of %s has no entry in flagTable", fl.Name, name)
				return
			}
			pos := base.pos
			if info.pos != nil {
				pos = info.pos
			}
			invoke := func(flags []string) []string { return append(append([]string{name}, pos...), flags...) }
			flags := with(base.flags, info.base)
			// The flag as the only change: set, replaced, or appended.
			one := func(v string) []string {
				out := with(flags, []string{"--" + fl.Name, "-"})
				return invoke(append(out, flagArgs(fl.Name, v, info.kind)...))
			}
			if got := Main(one(info.legal), io.Discard, io.Discard); got != 0 {
				t.Errorf("%s --%s %q: the legal value exits %d; fix flagTable", name, fl.Name, info.legal, got)
			}
			f.clearOutputs() // the next legal run writes them anew, without --force
			want := "--" + fl.Name
			add(badCase{name: name + "/" + fl.Name + "=", args: one(""), want: want})
			twice := append(one(info.legal), flagArgs(fl.Name, info.legal, info.kind)...)
			add(badCase{name: name + "/" + fl.Name + " twice", args: twice, want: "flag --" + fl.Name + " given twice"})
			vals := append(slices.Clone(kindBad[info.kind]), info.bad...)
			if info.kind == kPathOut || info.kind == kPathIn {
				vals = append(vals, f.dir)
			}
			for _, v := range vals {
				v = strings.ReplaceAll(v, "REGULAR", f.regular)
				add(badCase{name: name + "/" + fl.Name + "=" + v, args: one(v), want: want})
			}
		})
		add(badCase{name: name + "/unknown flag", args: append(append([]string{name}, base.pos...), "--frobnicate"), want: "--frobnicate"})
	}
	// Positional arguments: files and folders.
	missing := filepath.Join(f.dir, "missing")
	for _, c := range []struct {
		cmd, what string
		pos       []string
		want      string
	}{
		{"sweep", "no file", nil, "balloc sweep"},
		{"sweep", "missing", []string{missing}, missing},
		{"sweep", "dir", []string{f.dir}, f.dir},
		{"sweep", "two files", []string{f.toml, f.otherToml}, "balloc sweep"},
		{"slurm", "missing", []string{missing}, missing},
		{"slurm", "dir", []string{f.dir}, f.dir},
		{"slurm", "no file", nil, "balloc slurm"},
		{"summarize", "missing", []string{missing}, missing},
		{"summarize", "file", []string{f.regular}, f.regular},
		{"summarize", "empty dir", []string{f.emptyDir}, f.emptyDir},
		{"summarize", "no dir", nil, "balloc summarize"},
		{"summarize", "two dirs", []string{f.sweep, f.otherSweep}, "balloc summarize"},
		{"plot", "missing", []string{missing}, missing},
		{"plot", "file", []string{f.regular}, f.regular},
		{"plot", "empty dir", []string{f.emptyDir}, f.emptyDir},
		{"plot", "no dir", nil, "balloc plot"},
		{"merge", "missing", []string{missing}, missing},
		{"merge", "file", []string{f.regular}, f.regular},
		{"merge", "empty dir", []string{f.emptyDir}, f.emptyDir},
		{"merge", "two sweeps", []string{f.sweep, f.otherSweep}, f.otherSweep},
		{"merge", "no dir", nil, "balloc merge"},
		{"info", "extra", []string{"extra"}, "extra"},
		{"run", "extra", []string{"extra"}, "extra"},
		{"graph-stats", "extra", []string{"extra"}, "extra"},
		{"haar-info", "extra", []string{"extra"}, "extra"},
		{"optimal", "extra", []string{"extra"}, "extra"},
		{"adversary", "extra", []string{"extra"}, "extra"},
		{"hypergraph-stats", "extra", []string{"extra"}, "extra"},
		{"concurrent", "extra", []string{"extra"}, "extra"},
	} {
		add(badCase{name: c.cmd + "/" + c.what, args: append(append([]string{c.cmd}, c.pos...), bases[c.cmd].flags...), want: c.want})
	}
	// Required flags left out.
	for _, c := range []struct{ cmd, drop string }{
		{"run", "--process"}, {"run", "--bins"}, {"run", "--balls"}, {"plot", "--kind"}, {"plot", "--out"},
		{"merge", "--out"}, {"slurm", "--tasks"}, {"concurrent", "--process"}, {"concurrent", "--bins"},
		{"concurrent", "--balls"}, {"graph-stats", "--graph"}, {"haar-info", "--graph"}, {"hypergraph-stats", "--hyperedges"},
		{"optimal", "--process"}, {"optimal", "--bins"}, {"adversary", "--bins"}, {"adversary", "--builtin"},
	} {
		add(badCase{name: c.cmd + "/without " + c.drop, args: append(append([]string{c.cmd}, bases[c.cmd].pos...), with(bases[c.cmd].flags, []string{c.drop, "-"})...), want: c.drop})
	}
	// --k is shared: the table tries it on k-thinning (2 ≤ K ≤ 64), these on
	// memory (0 ≤ K ≤ min(bins, 1024)) and kd-choice (1 ≤ K ≤ d).
	for _, v := range []string{"5", "1025", "-1", "x"} {
		add(badCase{name: "memory/k=" + v, args: append([]string{"run"}, with(bases["run"].flags, []string{"--process", "memory", "--bins", "4", "--k", v})...), want: "--k"})
	}
	for _, v := range []string{"4", "0", "2^20+1"} { // kd-choice: 1 ≤ K ≤ d
		add(badCase{name: "kd-choice/k=" + v, args: append([]string{"run"}, with(bases["run"].flags, []string{"--process", "kd-choice", "--d", "3", "--k", v})...), want: "--k"})
	}
	// Sweep folders that are not what they should be.
	brokenMan := filepath.Join(f.dir, "broken-manifest")
	mustMkdir(t, brokenMan)
	writeFile(t, filepath.Join(brokenMan, "manifest.json"), "{not json")
	for _, cmd := range []string{"summarize", "plot", "merge"} {
		add(badCase{name: cmd + "/dir=broken manifest", args: append(append([]string{cmd}, brokenMan), bases[cmd].flags...), want: "manifest.json"})
	}
	// Files read by flags: ages, graph and hypergraph files with bad lines.
	for _, c := range []struct{ name, text, want string }{
		{"negative age", "-1 2\n", "--ages"},
		{"age not a number", "x 2\n", "--ages"},
		{"three fields", "0 1 2\n", "--ages"},
		{"zero counts", "0 0\n", "--ages"},
		{"0 18446744073709551615 + 0 1", "0 18446744073709551615\n0 1\n", "--ages"},
	} {
		p := filepath.Join(f.dir, "ages-"+strings.ReplaceAll(c.name, " ", "_"))
		writeFile(t, p, c.text)
		add(badCase{name: "ages/" + c.name, args: append([]string{"run"}, with(bases["run"].flags, []string{"--process", "tau-delay", "--delay", "empirical", "--ages", p})...), want: p})
	}
	// τ-Delay as a setting of other processes: the cross-checks of its new uses.
	for _, c := range []struct {
		name string
		set  []string
		want string
	}{
		{"with batch", []string{"--process", "d-choice", "--d", "3", "--tau", "2", "--batch", "2"}, "--tau"},
		{"thinning with batch", []string{"--process", "two-thinning", "--threshold", "1", "--tau", "2", "--batch", "2"}, "--tau"},
		{"delay without tau", []string{"--process", "one-plus-beta", "--beta", "0.5", "--delay", "uniform"}, "--delay"},
		{"quantile uniform", []string{"--process", "quantile", "--delta", "0.5", "--tau", "2", "--delay", "uniform"}, "--delay"},
		{"quantile adversarial", []string{"--process", "mixed-quantile", "--delta", "0.5", "--eta", "0.5", "--tau", "2", "--delay", "adversarial"}, "--delay"},
		{"weights d=3", []string{"--process", "d-choice", "--d", "3", "--tau", "2", "--weights", "exp:1"}, "--weights"},
		{"dims", []string{"--process", "d-choice", "--d", "2", "--dims", "2", "--tau", "2"}, "--tau"},
		{"histogram", []string{"--process", "d-choice", "--d", "3", "--tau", "2", "--engine", "histogram"}, "--engine"},
		{"thinning batch histogram", []string{"--process", "two-thinning", "--threshold", "1", "--batch", "2", "--engine", "histogram"}, "--engine"},
		{"empirical with tau", []string{"--process", "two-choice", "--delay", "empirical", "--ages", f.ages, "--tau", "2"}, "--tau"},
		{"ages without empirical", []string{"--process", "two-thinning", "--threshold", "1", "--tau", "2", "--ages", f.ages}, "--ages"},
		{"replay without file", []string{"--process", "d-choice", "--d", "3", "--delay", "replay"}, "--replay"},
		{"replay too short", []string{"--process", "two-thinning", "--threshold", "1", "--delay", "replay", "--replay", f.replay, "--balls", "9"}, "--replay"},
	} {
		add(badCase{name: "delay setting/" + c.name, args: append([]string{"run"}, with(bases["run"].flags, c.set)...), want: c.want})
	}
	// --batch for the processes of core/process/batch.go: direct engine only.
	for _, set := range [][]string{
		{"--process", "k-thinning", "--k", "3", "--thresholds", "quantile"},
		{"--process", "adaptive"},
		{"--process", "packing"},
		{"--process", "kd-choice", "--k", "2", "--d", "3"},
	} {
		add(badCase{name: "batch histogram/" + set[1], args: append([]string{"run"}, with(bases["run"].flags, append(set, "--batch", "2", "--engine", "histogram"))...), want: "--engine"})
	}
	kt := []string{"--process", "k-thinning", "--k", "3", "--thresholds", "0,1", "--tau", "2"}
	add(badCase{name: "k-thinning delay uniform", args: append([]string{"run"}, with(bases["run"].flags, append(kt, "--delay", "uniform"))...), want: "--delay"})
	add(badCase{name: "k-thinning tau with batch", args: append([]string{"run"}, with(bases["run"].flags, append(kt, "--batch", "2"))...), want: "--tau"})
	// --tau T --delay fixed for the processes of core/process/delay.go.
	for _, set := range [][]string{
		{"--process", "threshold"},
		{"--process", "adaptive"},
		{"--process", "twinning"},
		{"--process", "packing"},
		{"--process", "kd-choice", "--k", "2", "--d", "3"},
	} {
		set = append(set, "--tau", "2")
		for _, c := range []struct {
			name string
			more []string
			want string
		}{
			{"delay uniform", []string{"--delay", "uniform"}, "--delay"},
			{"batch", []string{"--batch", "2"}, "--tau"},
			{"initial", []string{"--initial", "spike:3"}, "--initial"},
			{"weights", []string{"--weights", "exp:1"}, "--weights"},
			{"histogram", []string{"--engine", "histogram"}, "--engine"},
		} {
			add(badCase{name: "tau2 " + c.name + "/" + set[1], args: append([]string{"run"}, with(bases["run"].flags, append(slices.Clone(set), c.more...))...), want: c.want})
		}
	}
	for _, c := range []struct{ name, text string }{
		{"node not a number", "0 x\n"},
		{"one field", "0\n"},
		{"negative node", "0 -1\n"},
		{"huge node", "0 18446744073709551616\n"},
		{"self-loop", "0 0\n0 1\n"},
		{"duplicate edge", "0 1\n0 1\n1 2\n"},
	} {
		p := filepath.Join(f.dir, "graph-"+strings.ReplaceAll(c.name, " ", "_"))
		writeFile(t, p, c.text)
		add(badCase{name: "graph file/" + c.name, args: []string{"run", "--process", "graphical", "--graph", "file:" + p, "--balls", "8", "--progress", "never"}, want: p})
		add(badCase{name: "graph-stats file/" + c.name, args: []string{"graph-stats", "--graph", "file:" + p}, want: p})
	}
	for _, c := range []struct{ name, text string }{
		{"bin not a number", "0 x\n"},
		{"negative bin", "0 -1\n"},
		{"repeated bin", "0 0 1\n"},
		{"empty", "\n"},
	} {
		p := filepath.Join(f.dir, "hyper-"+strings.ReplaceAll(c.name, " ", "_"))
		writeFile(t, p, c.text)
		add(badCase{name: "hyperedges file/" + c.name, args: []string{"hypergraph-stats", "--hyperedges", "file:" + p}, want: p})
	}
	// TOML: each key of a sweep file with a bad value; sweep and slurm read it.
	good := map[string]string{"processes": `["two-choice"]`, "bins": "[4]", "balls": "[8]", "trials": "2"}
	for _, c := range []struct{ key, value, want string }{
		{"processes", "[]", "processes"}, {"processes", `["nope"]`, "nope"}, {"processes", `"nope"`, "nope"},
		{"processes", "[1]", "processes"}, {"processes", `[""]`, "processes"}, {"processes", "[[\"two-choice\"]]", "processes"},
		{"bins", "[0]", "bins"}, {"bins", "[-1]", "bins"}, {"bins", `["abc"]`, "bins"}, {"bins", "[1.5]", "bins"},
		{"bins", "[]", "bins"}, {"bins", `["2^64"]`, "bins"}, {"bins", `["2^51"]`, "bins"}, {"bins", "[true]", "bins"},
		{"balls", "[-1]", "balls"}, {"balls", `["x"]`, "balls"}, {"balls", "[]", "balls"}, {"balls", "[1e400]", "bad-balls-_1e400_.toml"},
		{"trials", "0", "trials"}, {"trials", "-1", "trials"}, {"trials", `"x"`, "trials"}, {"trials", "[1, 2]", "trials"},
		{"trials", "2.5", "trials"}, {"trials", `"2^32"`, "trials"},
		{"seed", "-1", "seed"}, {"seed", `"abc"`, "seed"}, {"seed", "1.5", "seed"},
		{"checkpoints", "1001", "checkpoints"}, {"checkpoints", "-1", "checkpoints"},
		{"engine", `"gpu"`, "engine"}, {"engine", `""`, "engine"}, {"engine", "1", "engine"},
		{"alpha", `"x"`, "alpha"}, {"alpha", `"NaN"`, "alpha"},
		{"frobnicate", "1", "frobnicate"},
		{"params", "1", "params"},
	} {
		text := ""
		for _, k := range []string{"processes", "bins", "balls", "trials"} {
			if k != c.key {
				text += k + " = " + good[k] + "\n"
			}
		}
		text += c.key + " = " + c.value + "\n"
		p := filepath.Join(f.dir, "bad-"+c.key+"-"+strings.Map(func(r rune) rune {
			if strings.ContainsRune(`[]"/ .^,`, r) {
				return '_'
			}
			return r
		}, c.value)+".toml")
		writeFile(t, p, text)
		for _, cmd := range []string{"sweep", "slurm"} {
			// A folder of its own, which no earlier case has filled.
			flags := with(bases[cmd].flags, []string{"--out", p + "." + cmd})
			add(badCase{name: "toml/" + c.key + "=" + c.value + " (" + cmd + ")", args: append([]string{cmd, p}, flags...), want: c.want})
		}
	}
	for _, c := range []struct{ name, text, want string }{
		{"syntax", "processes = [\"two-choice\"\n", "s.toml"},
		{"unknown param", "processes = [\"two-choice\"]\nbins = [4]\nballs = [8]\n[params]\nnope = 1\n", "params.nope"},
		{"bad param value", "processes = [\"g-myopic-comp\"]\nbins = [4]\nballs = [8]\n[params]\ng = [-1]\n", "g"},
		{"both balls", "processes = [\"two-choice\"]\nbins = [4]\nballs = [8]\nballs_per_bin = [2]\n", "balls_per_bin"},
		{"both process", "process = \"two-choice\"\nprocesses = [\"two-choice\"]\nbins = [4]\nballs = [8]\n", "process"},
		{"no bins", "processes = [\"two-choice\"]\nballs = [8]\n", "bins"},
		{"no balls", "processes = [\"two-choice\"]\nbins = [4]\n", "balls"},
		{"no processes", "bins = [4]\nballs = [8]\n", "processes"},
		{"empty file", "", "processes"},
	} {
		var p string
		if c.name != "syntax" {
			p = filepath.Join(f.dir, "bad-"+strings.ReplaceAll(c.name, " ", "_")+".toml")
		} else {
			p = filepath.Join(f.dir, "syntax", "s.toml")
			mustMkdir(t, filepath.Dir(p))
		}
		writeFile(t, p, c.text)
		for _, cmd := range []string{"sweep", "slurm"} {
			add(badCase{name: "toml/" + c.name + " (" + cmd + ")", args: append([]string{cmd, p}, bases[cmd].flags...), want: c.want})
		}
	}
	cases = append(cases, hostileFileCases(t, f)...)
	f.clearOutputs()
	boundedReaders(t, f, bases, add)
	return cases
}

// boundedReaders adds the inputs that are refused because reading them
// would not end or would not fit: TOML nesting and grid
// sizes checked before decoding and expanding, files that never end, a
// manifest asking for more trials than a sweep can have. The memory cases
// (case 5) run under a lowered RLIMIT_AS in TestMemoryRefusedUnderRlimitAS.
func boundedReaders(t *testing.T, f *fixtures, bases map[string]struct{ pos, flags []string }, add func(badCase)) {
	list := func(from, n int) string {
		var b []string
		for i := range n {
			b = append(b, strconv.Itoa(from+i))
		}
		return "[" + strings.Join(b, ",") + "]"
	}
	for _, c := range []struct{ name, text, want string }{
		{"8000 nested inline tables", "process = \"one-choice\"\nbins = 10\nballs = 10\nx = " + strings.Repeat("{a=", 8000) + "1" + strings.Repeat("}", 8000) + "\n", ":4: keys and values nested more than 32 deep"},
		{"16000 nested inline tables", "process = \"one-choice\"\nbins = 10\nballs = 10\nx = " + strings.Repeat("{a=", 16000) + "1" + strings.Repeat("}", 16000) + "\n", ":4: keys and values nested more than 32 deep"},
		{"8000 dotted key parts", "process = \"one-choice\"\nbins = 10\nballs = 10\n" + strings.Repeat("a.", 7999) + "a = 1\n", ":4: keys and values nested more than 32 deep"},
		{"a 1000x1000x1000 grid", "process = \"g-myopic-comp\"\nbins = " + list(2, 1000) + "\nballs = " + list(1, 1000) + "\n[params]\ng = " + list(0, 1000) + "\n", "1e9 points, more than the 1048576"},
	} {
		p := filepath.Join(f.dir, "bounded-"+strings.ReplaceAll(c.name, " ", "_")+".toml")
		writeFile(t, p, c.text)
		for _, cmd := range []string{"sweep", "slurm"} {
			flags := with(bases[cmd].flags, []string{"--out", p + "." + cmd})
			add(badCase{name: "bounded/" + c.name + " (" + cmd + ")", args: append([]string{cmd, p}, flags...), want: c.want})
		}
	}
	add(badCase{name: "bounded/summarize --compare /dev/zero", args: []string{"summarize", f.sweep, "--compare", "/dev/zero"}, want: "not a regular file (a character device)"})
	// A regular reference file past the cap (sparse: no 17 MiB written).
	bigRef := filepath.Join(f.dir, "big-ref.toml")
	if err := os.WriteFile(bigRef, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(bigRef, 17<<20); err != nil {
		t.Fatal(err)
	}
	add(badCase{name: "bounded/summarize --compare 17 MiB", args: []string{"summarize", f.sweep, "--compare", bigRef}, want: "more than the 16 MiB a reference file may hold"})
	nested := filepath.Join(f.dir, "nested-ref.toml")
	writeFile(t, nested, "x = "+strings.Repeat("[", 40)+strings.Repeat("]", 40)+"\n")
	add(badCase{name: "bounded/summarize --compare nested", args: []string{"summarize", f.sweep, "--compare", nested}, want: "nested-ref.toml:1: keys and values nested"})

	// A sweep folder whose results.jsonl is /dev/zero, and one whose
	// manifest was edited to trials = 10^18.
	zero := filepath.Join(f.dir, "zero-results")
	copyDir(t, f.sweep, zero)
	if err := os.Remove(filepath.Join(zero, "results.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(zero, "results.jsonl")); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(f.dir, "huge-trials")
	copyDir(t, f.sweep, huge)
	man, err := os.ReadFile(filepath.Join(huge, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(huge, "manifest.json"), strings.Replace(string(man), `"trials": 2`, `"trials": 1000000000000000000`, 1))
	for _, c := range []struct {
		dir, want string
	}{{zero, "results.jsonl: a character device, not a file of results"}, {huge, "has trials = 1000000000000000000; a sweep runs 1 to 2^31 trials a point"}} {
		add(badCase{name: "bounded/summarize " + filepath.Base(c.dir), args: []string{"summarize", c.dir}, want: c.want})
		add(badCase{name: "bounded/merge " + filepath.Base(c.dir), args: []string{"merge", c.dir, "--out", c.dir + ".merged"}, want: c.want})
		add(badCase{name: "bounded/plot " + filepath.Base(c.dir), args: []string{"plot", c.dir, "--kind", "gap-vs-balls", "--out", c.dir + ".png"}, want: c.want})
	}
	add(badCase{name: "bounded/sweep into huge-trials", args: []string{"sweep", f.toml, "--out", huge, "--progress", "never"}, want: "has trials = 1000000000000000000"})
}

// copyDir copies the regular files of a folder into a new one.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	mustMkdir(t, to)
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(from, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(to, e.Name()), string(b))
		}
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// Bad input across every subcommand: exit 2 and exactly one stderr line
// that names the culprit.
func TestBadInputsEverySubcommand(t *testing.T) {
	f := newFixtures(t)
	cases := badCases(t, f)
	tried, clean := 0, 0
	for _, c := range cases {
		tried++
		before := snapshots(t, c.keep)
		code, stdout, stderr := run(t, c.args...)
		for i, p := range c.keep {
			if now := snapshot(t, p); now != before[i] {
				t.Errorf("%s: %s changed: %s, was %s", c.name, p, now, before[i])
			}
		}
		for _, p := range c.absent {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s: the refusal made %s", c.name, p)
				os.RemoveAll(p)
			}
		}
		switch {
		case code != 2:
			t.Errorf("%s: %q: exit %d, want 2 (stderr %q)", c.name, c.args, code, stderr)
		case stdout != "":
			t.Errorf("%s: %q: wrote to stdout %q", c.name, c.args, stdout)
		case strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n"):
			t.Errorf("%s: %q: stderr is not one line: %q", c.name, c.args, stderr)
		case !strings.Contains(stderr, c.want):
			t.Errorf("%s: %q: stderr %q does not name %q", c.name, c.args, stderr, c.want)
		case c.most > 0 && len(stderr) > c.most:
			t.Errorf("%s: the error line is %d bytes, more than %d: %.200q…", c.name, len(stderr), c.most, stderr)
		default:
			clean++
		}
	}
	t.Logf("bad inputs: %d tried, %d handled cleanly", tried, clean)
}

// snapshot describes a file as the refusals must leave it: its type, mode
// and bytes (a digest), or that it is absent.
func snapshot(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		return "absent"
	}
	if !fi.Mode().IsRegular() {
		return fi.Mode().String()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%v %x", fi.Mode(), sha256.Sum256(b))
}

func snapshots(t *testing.T, paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, snapshot(t, p))
	}
	return out
}

// hostileFileCases are the hostile output paths: outputs onto the run's inputs,
// onto a sweep's files, onto files that exist, into paths that cannot be
// made; folders and lock files that are not balloc's; FIFOs and devices as
// inputs; and the exit-2 paths that once printed a warning line first.
// Every one is refused in one line and leaves the files as they were.
func hostileFileCases(t *testing.T, f *fixtures) []badCase {
	var cases []badCase
	add := func(name, want string, keep []string, args ...string) {
		cases = append(cases, badCase{name: "files/" + name, args: args, want: want, keep: keep})
	}
	d := func(n string) string { return filepath.Join(f.dir, n) }
	fifo := d("fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	results := filepath.Join(f.sweep, "results.jsonl")
	hard := d("g-hard.txt")
	if err := os.Link(f.graph, hard); err != nil {
		t.Fatal(err)
	}
	resLink := d("results-link.png")
	if err := os.Symlink(results, resLink); err != nil {
		t.Fatal(err)
	}
	graphPng := d("graph.png")
	writeFile(t, graphPng, "0 1\n1 2\n2 0\n")
	existing := d("existing.png")
	writeFile(t, existing, "a picture the user keeps\n")
	if err := os.Chmod(existing, 0o600); err != nil {
		t.Fatal(err)
	}
	graphical := []string{"run", "--process", "graphical", "--graph", "file:" + f.graph, "--balls", "8", "--progress", "never"}
	small := []string{"run", "--process", "two-choice", "--bins", "4", "--balls", "8", "--progress", "never"}
	tau := []string{"run", "--process", "tau-delay", "--bins", "4", "--balls", "8", "--progress", "never"}
	empirical := []string{"run", "--process", "tau-delay", "--delay", "empirical", "--ages", f.ages, "--bins", "4", "--balls", "8", "--progress", "never"}
	replay := []string{"run", "--process", "tau-delay", "--delay", "replay", "--replay", f.replay, "--bins", "4", "--balls", "8", "--progress", "never"}
	with := func(base []string, more ...string) []string { return append(slices.Clone(base), more...) }

	// 1. Outputs onto the run's inputs, under any name, even with --force.
	add("memprofile onto the graph", "--memprofile", []string{f.graph}, with(graphical, "--memprofile", f.graph)...)
	add("memprofile onto a hard link of the graph", "--memprofile", []string{f.graph}, with(graphical, "--memprofile", hard, "--force")...)
	add("cpuprofile onto --ages", "--cpuprofile", []string{f.ages}, with(empirical, "--cpuprofile", f.ages, "--force")...)
	add("trace onto --replay", "--trace", []string{f.replay}, with(replay, "--trace", f.replay, "--force")...)
	add("plot onto the graph", "--plot", []string{graphPng}, "run", "--process", "graphical", "--graph", "file:"+graphPng, "--balls", "8", "--plot", graphPng, "--plot-kind", "gap-distribution", "--force")
	add("memprofile onto a sweep's results", "--memprofile", []string{results}, with(small, "--memprofile", results, "--force")...)
	add("plot --out onto the sweep's results by a link", "--out", []string{results}, "plot", f.sweep, "--kind", "gap-distribution", "--out", resLink, "--force")
	add("cpuprofile onto the sweep file", "--force", []string{f.toml}, with(small, "--cpuprofile", f.toml)...)
	add("plot and cpuprofile on one file", "--plot", nil, with(small, "--plot", d("both.png"), "--plot-kind", "gap-distribution", "--cpuprofile", d("both.png"))...)
	// An existing file without --force, for every command that writes one.
	add("plot onto an existing file", "--force", []string{existing}, with(small, "--plot", existing, "--plot-kind", "gap-distribution")...)
	add("cpuprofile onto an existing file", "--force", []string{existing}, with(small, "--cpuprofile", existing)...)
	add("plot --out onto an existing file", "--force", []string{existing}, "plot", f.sweep, "--kind", "gap-distribution", "--out", existing)
	add("save-ages onto an existing file", "--force", []string{existing}, "concurrent", "--process", "two-choice", "--bins", "4", "--balls", "8", "--emulate", "2", "--save-ages", existing)
	add("concurrent memprofile onto an existing file", "--force", []string{existing}, "concurrent", "--process", "two-choice", "--bins", "4", "--balls", "8", "--memprofile", existing)
	slurmOut := d("slurm-existing")
	mustMkdir(t, filepath.Join(slurmOut, "slurm"))
	var scripts []string
	for _, n := range []string{"array.sbatch", "merge.sbatch", "submit.sh"} {
		p := filepath.Join(slurmOut, "slurm", n)
		if n != "merge.sbatch" {
			writeFile(t, p, "#!/bin/sh\n# the user's own "+n+"\n")
		}
		scripts = append(scripts, p)
	}
	add("slurm onto existing scripts", "--force", scripts, "slurm", f.toml, "--tasks", "2", "--out", slurmOut)

	// A device (a node with /dev/null's numbers in the temporary folder, as
	// root; else the FIFO) named as an output of a refused run stays what
	// it is.
	dev := d("null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		dev = fifo
	}
	devPng := d("device.png")
	if err := os.Symlink(dev, devPng); err != nil {
		t.Fatal(err)
	}
	add("device as --cpuprofile beside --memprofile", "each need a run of their own", []string{dev}, with(small, "--cpuprofile", dev, "--memprofile", d("m2.pprof"))...)
	add("device as --plot with a bad --plot-kind", "--plot-kind", []string{dev, devPng}, with(small, "--plot", devPng, "--plot-kind", "pie")...)

	// 3. Paths that cannot be made, refused before the work.
	long := d(strings.Repeat("n", 300) + ".pprof")
	for _, c := range []struct{ flag, path, want string }{
		{"--cpuprofile", long, "too long"},
		{"--memprofile", filepath.Join(f.regular, "sub", "m.pprof"), f.regular + " is not a folder"},
		{"--trace", "/proc/nonexistent/t.out", "cannot make the folder"},
		{"--plot", d(strings.Repeat("p", 300) + ".png"), "too long"},
	} {
		args := with(small, c.flag, c.path)
		if c.flag == "--plot" {
			args = append(args, "--plot-kind", "gap-distribution")
		}
		cases = append(cases, badCase{name: "files/" + c.flag + " cannot be made", args: args, want: c.want, absent: []string{c.path}})
	}
	cases = append(cases, badCase{name: "files/save-ages cannot be made", want: "too long", absent: []string{long},
		args: []string{"concurrent", "--process", "two-choice", "--bins", "4", "--balls", "8", "--emulate", "2", "--save-ages", long}})

	// 2. Sweep and merge folders that are not balloc's.
	foreignMan := d("foreign-manifest")
	mustMkdir(t, foreignMan)
	writeFile(t, filepath.Join(foreignMan, "manifest.json"), `{"name": "another program", "version": 3}`+"\n")
	userDir := d("user-dir")
	mustMkdir(t, userDir)
	writeFile(t, filepath.Join(userDir, "notes.txt"), "the user's notes\n")
	dataLine := d("sweep-data-line")
	copyDir(t, f.sweep, dataLine)
	b, _ := os.ReadFile(filepath.Join(dataLine, "results.jsonl"))
	writeFile(t, filepath.Join(dataLine, "results.jsonl"), string(b)+"my data line\n")
	userLock := d("sweep-user-lock")
	copyDir(t, f.sweep, userLock)
	os.Remove(filepath.Join(userLock, sweep.LockName))
	writeFile(t, filepath.Join(userLock, sweep.LockName), "my lock notes\n")
	lockOnly := d("merge-user-lock")
	mustMkdir(t, lockOnly)
	writeFile(t, filepath.Join(lockOnly, sweep.LockName), "my lock notes\n")
	fifoLock := d("sweep-fifo-lock")
	copyDir(t, f.sweep, fifoLock)
	os.Remove(filepath.Join(fifoLock, sweep.LockName))
	if err := syscall.Mkfifo(filepath.Join(fifoLock, sweep.LockName), 0o644); err != nil {
		t.Fatal(err)
	}
	bins0 := d("bins0")
	copyDir(t, f.sweep, bins0)
	m, _ := os.ReadFile(filepath.Join(bins0, "manifest.json"))
	writeFile(t, filepath.Join(bins0, "manifest.json"), strings.Replace(string(m), `"bins": 4,`, `"bins": 0,`, 1))
	for _, c := range []struct {
		name, want string
		keep       []string
		absent     []string
		args       []string
	}{
		{"sweep into a foreign manifest's folder", "not a manifest balloc wrote", []string{filepath.Join(foreignMan, "manifest.json")}, []string{filepath.Join(foreignMan, sweep.LockName)},
			[]string{"sweep", f.toml, "--out", foreignMan, "--progress", "never"}},
		{"merge into a foreign manifest's folder", "not a manifest balloc wrote", []string{filepath.Join(foreignMan, "manifest.json")}, []string{filepath.Join(foreignMan, sweep.LockName)},
			[]string{"merge", f.sweep, "--out", foreignMan}},
		{"summarize a foreign manifest's folder", "not a manifest balloc wrote", nil, nil, []string{"summarize", foreignMan}},
		{"sweep into a user's folder", "holds no sweep", []string{filepath.Join(userDir, "notes.txt")}, []string{filepath.Join(userDir, sweep.LockName), filepath.Join(userDir, "manifest.json")},
			[]string{"sweep", f.toml, "--out", userDir, "--progress", "never"}},
		{"sweep onto a complete line that is not JSON", "results.jsonl:3", []string{filepath.Join(dataLine, "results.jsonl")}, nil,
			[]string{"sweep", f.toml, "--out", dataLine, "--progress", "never"}},
		{"summarize a complete line that is not JSON", "results.jsonl:3", nil, nil, []string{"summarize", dataLine}},
		{"sweep onto a user's sweep.lock", "not balloc's lock", []string{filepath.Join(userLock, sweep.LockName), filepath.Join(userLock, "results.jsonl")}, nil,
			[]string{"sweep", f.toml, "--out", userLock, "--progress", "never"}},
		{"merge onto a user's sweep.lock", "not balloc's lock", []string{filepath.Join(lockOnly, sweep.LockName)}, []string{filepath.Join(lockOnly, "manifest.json")},
			[]string{"merge", f.sweep, "--out", lockOnly}},
		{"sweep onto a FIFO sweep.lock", "not a regular file", []string{filepath.Join(fifoLock, sweep.LockName)}, nil,
			[]string{"sweep", f.toml, "--out", fifoLock, "--progress", "never"}},
		{"plot a manifest with bins = 0", "bins = 0", nil, []string{d("bins0.png")}, []string{"plot", bins0, "--kind", "gap-vs-bins", "--out", d("bins0.png")}},
	} {
		cases = append(cases, badCase{name: "files/" + c.name, args: c.args, want: c.want, keep: c.keep, absent: c.absent})
	}

	// 4. FIFOs and devices as inputs: refused at once, never waited on.
	fifoSweep := d("fifo-sweep")
	copyDir(t, f.sweep, fifoSweep)
	os.Remove(filepath.Join(fifoSweep, "results.jsonl"))
	if err := syscall.Mkfifo(filepath.Join(fifoSweep, "results.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifoMan := d("fifo-manifest")
	copyDir(t, f.sweep, fifoMan)
	os.Remove(filepath.Join(fifoMan, "manifest.json"))
	if err := syscall.Mkfifo(filepath.Join(fifoMan, "manifest.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		args       []string
	}{
		{"--graph file:FIFO", "--graph", []string{"run", "--process", "graphical", "--graph", "file:" + fifo, "--balls", "8"}},
		{"graph-stats --graph file:FIFO", "--graph", []string{"graph-stats", "--graph", "file:" + fifo}},
		{"haar-info --graph file:FIFO", "--graph", []string{"haar-info", "--graph", "file:" + fifo}},
		{"--hyperedges file:FIFO", "--hyperedges", []string{"hypergraph-stats", "--hyperedges", "file:" + fifo, "--bins", "8"}},
		{"--ages FIFO", "--ages", with(tau, "--delay", "empirical", "--ages", fifo)},
		{"--replay FIFO", "--replay", with(tau, "--delay", "replay", "--replay", fifo)},
		{"--initial file:FIFO", "--initial", with(small, "--initial", "file:"+fifo)},
		{"--sampling file:FIFO", "--sampling", with(small, "--sampling", "file:"+fifo)},
		{"sweep FIFO", fifo, []string{"sweep", fifo, "--out", d("fifo-out"), "--progress", "never"}},
		{"slurm FIFO", fifo, []string{"slurm", fifo, "--tasks", "2", "--out", d("fifo-slurm")}},
		{"summarize --compare FIFO", "--compare", []string{"summarize", f.sweep, "--compare", fifo}},
		{"summarize --compare /dev/zero", "--compare", []string{"summarize", f.sweep, "--compare", "/dev/zero"}},
		{"--graph file:/dev/zero", "--graph", []string{"graph-stats", "--graph", "file:/dev/zero"}},
		{"summarize with results.jsonl a FIFO", "results.jsonl", []string{"summarize", fifoSweep}},
		{"merge with results.jsonl a FIFO", "results.jsonl", []string{"merge", fifoSweep, "--out", d("fifo-merged")}},
		{"plot with manifest.json a FIFO", "manifest.json", []string{"plot", fifoMan, "--kind", "gap-distribution", "--out", d("fifo.png")}},
		{"sweep into a folder whose results.jsonl is a FIFO", "results.jsonl", []string{"sweep", f.toml, "--out", fifoSweep, "--progress", "never"}},
	} {
		cases = append(cases, badCase{name: "files/" + c.name, args: c.args, want: c.want})
	}

	// 7. Smaller: no command, a long token, warnings before errors.
	add("help nonsense", "nonsense", nil, "help", "nonsense")
	add("-- run", `"run"`, nil, "--", "run")
	add("an unknown command", "nonsense", nil, "nonsense")
	longReplay := d("long-replay.txt")
	writeFile(t, longReplay, "0\n"+strings.Repeat("9", 2<<20)+"\n")
	cases = append(cases, badCase{name: "files/a 2 MB --replay token", want: "--replay", most: 400, args: with(tau, "--delay", "replay", "--replay", longReplay)})
	// Each of these once printed a note (a torn line, lines of another
	// sweep, points left out of a plot) before its error.
	torn := d("sweep-torn-conflict")
	copyDir(t, f.sweep, torn)
	lines := strings.SplitAfter(string(b), "\n")
	changed := strings.Replace(lines[0], `"gap":`, `"gap":1e9,"x_gap":`, 1)
	writeFile(t, filepath.Join(torn, "results.jsonl"), string(b)+changed+`{"spec_hash": "cut sh`)
	add("torn line, then two results for one trial (sweep)", "different results", []string{filepath.Join(torn, "results.jsonl")}, "sweep", f.toml, "--out", torn, "--progress", "never")
	add("torn line, then two results for one trial (summarize)", "different results", nil, "summarize", torn)
	mixed := d("sweep-foreign-lines")
	copyDir(t, f.sweep, mixed)
	other, _ := os.ReadFile(filepath.Join(f.otherSweep, "results.jsonl"))
	writeFile(t, filepath.Join(mixed, "results.jsonl"), string(b)+string(other))
	add("foreign lines, then --gap-from without checkpoints", "--gap-from", nil, "summarize", mixed, "--gap-from", "0.5")
	add("foreign lines, then --kind gap-vs-balls without checkpoints", "checkpoints", nil, "plot", mixed, "--kind", "gap-vs-balls", "--out", d("mixed.png"))
	add("points left out of gap-vs-param, then an output in no folder", "--plot", nil,
		"run", "--process", "g-adv-comp,two-choice", "--g", "0,1", "--bins", "4", "--balls", "8", "--plot", filepath.Join(f.regular, "x.png"), "--plot-kind", "gap-vs-param", "--progress", "never")
	return cases
}
