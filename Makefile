# balloc — see README.md. Every target works on a fresh machine with Go.
GO      ?= go
BIN     := bin/balloc
export GOFLAGS := -buildvcs=false

.PHONY: all build install run test test-long test-slurm bench lint fuzz docs-check clean

all: build

# The commit balloc version and sweep manifests name, -dirty when tracked
# files differ from it. GOFLAGS above turns Go's own stamping off (it fails
# where git cannot read the repository, e.g. another user's checkout), so
# the commit comes in by this linker flag.
COMMIT  := $(shell c=$$(git rev-parse HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null || c=$$c-dirty; echo $$c; })

build:
	$(GO) build -ldflags "-X main.commit=$(COMMIT)" -o $(BIN) ./cmd/balloc

# balloc on PATH: into $(go env GOBIN), else $(go env GOPATH)/bin.
install:
	$(GO) install -ldflags "-X main.commit=$(COMMIT)" ./cmd/balloc
	@d=$$($(GO) env GOBIN); [ -n "$$d" ] || d=$$($(GO) env GOPATH)/bin; echo "installed $$d/balloc: $$($$d/balloc version)"

# The default experiment: one-choice vs two-choice vs (1+β) at n = 10^4 bins
# and m = 10^8 balls, 10 trials each, with the fluid limit beside them, and
# the gap over time drawn into out/default.png (--force: make run replaces
# its own plot; balloc otherwise refuses to replace an existing file).
run: build
	./$(BIN) run --process one-choice,two-choice,one-plus-beta --beta 0.5 \
		--bins 1e4 --balls 1e8 --trials 10 --checkpoints 10 --theory --plot out/default.png --force

# TESTFLAGS are added to every go test (make test TESTFLAGS=-count=1 runs
# the tests again rather than reporting cached results).
TESTFLAGS ?=

# The tests whose goroutines share memory: the concurrent allocator's workers
# and its striped counters, the ordered trial pool, balloc's commands run
# with several workers or interrupted, and the Go API's parallel trials. make
# test runs these again under the race detector (not the whole suite twice);
# a new test that shares memory between goroutines takes a name matching
# this pattern. Under the detector (raceOn in concurrency's and cmd/balloc's
# tests) they keep their goroutines but drop what only costs time there:
# fewer balls, no 2^20-bin tables, no emulated (one-goroutine) runs.
RACE_TESTS := Contention|TotalsAddUp|MeasuredBallsAllCounted|Ordered|ForAnyWorkers|Concurrent|Interrupt|SweepJobs|GoroutineBackpressure

# Fast versions of every check (long statistical ones are skipped by -short,
# or run on fewer trials), then the shared-memory tests under the race
# detector. The timeout is go test's hang guard, not a speed limit: core/engine
# took 517 s of its default 600 on the shared machine with two CPU hogs.
test:
	$(GO) vet ./...
	$(GO) test -short -timeout 30m $(TESTFLAGS) ./...
	$(GO) test -short -race -timeout 30m $(TESTFLAGS) -run '$(RACE_TESTS)' . ./concurrency/... ./cmd/...

# Everything, including the long statistical checks at full power, the
# shared-memory tests at full size under the race detector (the whole
# concurrency package under -race ran past 12 min on 2 cores), and 20 s of
# fuzzing balloc run's flag values (make test runs only the seed corpus).
test-long:
	$(GO) test -timeout 60m $(TESTFLAGS) ./...
	$(GO) test -race -timeout 30m $(TESTFLAGS) -run '$(RACE_TESTS)' . ./concurrency/... ./cmd/...
	$(GO) test -run '^$$' -fuzz FuzzRunFlags -fuzztime 20s -fuzzminimizetime 5s ./cmd/balloc

# A real one-node Slurm cluster runs a sweep as a 4-task array and merges it
# (installs Debian's slurmctld, slurmd and munge when missing; needs root).
test-slurm:
	./.ci/test-slurm

# balls/s for every process at n = 10^4 and 10^7, beside the naive loop;
# the Markdown table is what bench/README.md shows.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s -count 3 ./bench | tee bench/latest.txt
	$(GO) run ./bench/tablegen < bench/latest.txt

# The README's and experiments/README.md's quoted outputs, rerun and compared
# (scripts/docscheck: seeded numbers exactly, speeds listed), and the README's
# speed claim against bench/README.md's table.
docs-check: build
	$(GO) run ./scripts/docscheck

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParseCount -fuzztime 30s ./core/units
	$(GO) test -run '^$$' -fuzz FuzzReadGraphFile -fuzztime 30s ./core/graph
	$(GO) test -run '^$$' -fuzz FuzzReadHyperFile -fuzztime 30s ./core/graph
	$(GO) test -run '^$$' -fuzz FuzzRunFlags -fuzztime 30s -fuzzminimizetime 5s ./cmd/balloc

clean:
	rm -rf bin bench/latest.txt
