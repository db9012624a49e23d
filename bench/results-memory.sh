#!/bin/sh
# Peak memory of balloc summarize and merge on a large results file: a real
# small sweep (2 processes × 2 n, 20 trials, 10 checkpoints) whose lines are
# replicated with distinct trial indices to about 200 MB (28000 trials a
# point, the manifest's trials raised to match), whole in DIR/big and split
# into even and odd trials in DIR/big_a and DIR/big_b (two shards of one
# sweep). Prints GNU time's maximum resident set size of each command, and
# checks that the merge of the halves holds every line.
#
#   sh bench/results-memory.sh [DIR] [TRIALS]   defaults: /tmp/results-memory 28000
#
# Needs GNU time (/usr/bin/time -v). BALLOC=path picks the binary, so that
# two builds can be compared on the same files.
set -eu
dir=${1:-/tmp/results-memory}
per=${2:-28000}
balloc=${BALLOC:-bin/balloc}
mkdir -p "$dir"
cat >"$dir/small.toml" <<'TOML'
processes = ["one-choice", "two-choice"]
bins = [100, 1000]
balls = ["1e4"]
trials = 20
checkpoints = 10
TOML
if [ ! -f "$dir/big/results.jsonl" ]; then
	rm -rf "$dir/small" "$dir/big" "$dir/big_a" "$dir/big_b"
	"$balloc" sweep "$dir/small.toml" --out "$dir/small" --progress never >/dev/null
	for d in big big_a big_b; do
		mkdir -p "$dir/$d"
		sed "s/\"trials\": 20,/\"trials\": $per,/" "$dir/small/manifest.json" >"$dir/$d/manifest.json"
	done
	# Trial t of a point is a copy of its trial t mod 20, renumbered t.
	awk -v per="$per" -v dir="$dir" '
		{ h = $0; sub(/.*"spec_hash":"/, "", h); sub(/".*/, "", h)
		  if (!(h in n)) order[++points] = h
		  line[h, n[h]++] = $0 }
		END {
			for (t = 0; t < per; t++)
				for (p = 1; p <= points; p++) {
					h = order[p]; l = line[h, t % n[h]]
					sub(/"trial":[0-9]+,/, "\"trial\":" t ",", l)
					print l > (dir "/big/results.jsonl")
					print l > (dir "/big_" (t % 2 == 0 ? "a" : "b") "/results.jsonl")
				}
		}' "$dir/small/results.jsonl"
fi
printf '# %s: %s bytes, %s lines\n' "$dir/big/results.jsonl" "$(wc -c <"$dir/big/results.jsonl")" "$(wc -l <"$dir/big/results.jsonl")"
peak() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ { print $2 " KB" }'; }
printf 'summarize        %s\n' "$(peak "$balloc" summarize "$dir/big")"
printf 'summarize csv    %s\n' "$(peak "$balloc" summarize "$dir/big" --format csv)"
rm -rf "$dir/merged"
printf 'merge two halves %s\n' "$(peak "$balloc" merge "$dir/big_a" "$dir/big_b" --out "$dir/merged")"
[ "$(wc -l <"$dir/merged/results.jsonl")" -eq "$(wc -l <"$dir/big/results.jsonl")" ] || echo "the merge lost lines" >&2
