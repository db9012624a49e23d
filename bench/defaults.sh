#!/bin/sh
# balloc concurrent at its defaults, every mode at every size: two-choice
# on n = 2, 64, 1000, 2^20 bins, modes racy, cas, local-batch (which has no
# default batch: --batch 64) and sharded, W = 1, 2, 4 workers, m balls, with
# --compare on. Per cell: a goroutine run (--workers W) — its wall time with
# the comparisons beside it, balls/s, age p50/p99/max (of every 256th ball
# of each worker), gap, and in sharded mode the age bound and the
# backpressure waits — then the emulated run (--emulate W, deterministic):
# its wall time, gap, and the replay of its every ball's ages (goroutine
# runs record no per-ball order, so they get no replay of their own).
#
#   sh bench/defaults.sh [M] [NS] [MODES] [WORKERS]
#   defaults: 1e6 "2 64 1000 1048576" "racy cas local-batch sharded" "1 2 4"
#
# Needs jq. COMPARE=false leaves the comparisons out (then no replay gap).
set -eu
m=${1:-1e6}
ns=${2:-2 64 1000 1048576}
modes=${3:-racy cas local-batch sharded}
workers=${4:-1 2 4}
compare=${COMPARE:-true}
balloc=${BALLOC:-bin/balloc}
now() { date +%s.%N; }
printf '# two-choice, m = %s, --compare=%s, %s CPU(s), balloc %s\n' "$m" "$compare" "$(nproc)" "$balloc"
printf '%-8s %-12s %-2s %-8s %-10s %-20s %-5s %-14s| %-8s %-5s %s\n' n mode W "wall s" balls/s "age p50/p99/max" gap "bound/waits" "emu wall" gap "replay gap"
for n in $ns; do
	for mode in $modes; do
		batch=""
		[ "$mode" = local-batch ] && batch="--batch 64"
		for w in $workers; do
			t0=$(now)
			# shellcheck disable=SC2086
			real=$("$balloc" concurrent --process two-choice --bins "$n" --balls "$m" --mode "$mode" $batch \
				--workers "$w" --compare="$compare" --progress never --format json)
			t1=$(now)
			# shellcheck disable=SC2086
			emu=$("$balloc" concurrent --process two-choice --bins "$n" --balls "$m" --mode "$mode" $batch \
				--emulate "$w" --compare="$compare" --progress never --format json)
			t2=$(now)
			r=$(printf '%s' "$real" | jq -r '.[0] | "\(.balls_per_s | floor) \(.age_p50)/\(.age_p99)/\(.age_max) \(.gap * 1000 | round / 1000) \(if .age_bound then "\(.age_bound)/\(.backpressure_waits)" else "-" end)"')
			e=$(printf '%s' "$emu" | jq -r '.[0] | "\(.gap * 1000 | round / 1000) \(if .replay_gap then (.replay_gap * 1000 | round / 1000) else "-" end)"')
			set -- $r $e
			printf '%-8s %-12s %-2s %-8.2f %-10s %-20s %-5s %-14s| %-8.2f %-5s %s\n' "$n" "$mode" "$w" \
				"$(echo "$t1 - $t0" | bc)" "$1" "$2" "$3" "$4" "$(echo "$t2 - $t1" | bc)" "$5" "$6"
		done
	done
done
