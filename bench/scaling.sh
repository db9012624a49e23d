#!/bin/sh
# Scaling of balloc concurrent: 1, 2, 4, 8, 16 workers, each run
# pinned to as many cores (taskset -c 0..W−1; fewer when the machine has
# fewer, which the table says), two-choice on n bins, m balls, one mode.
# Beside each goroutine run, the emulated run with as many virtual workers
# (deterministic), the replay of its exact age sequence and the i.i.d.-ages
# model: goroutine runs record ages of every 256th ball only, so they get
# no replay of their own. In racy and cas mode (x86-64 with an invariant
# TSC) a traced goroutine run follows (--trace-ages): its gap, the replay
# of its every ball's traced ages, its age p99/max, the balls preempted
# apart (age > 1000·W), and its balls/s against the untraced run just before.
#
#   sh bench/scaling.sh [MODE] [N] [M] [WORKERS]   defaults: racy 2^20 2^25 "1 2 4 8 16"
#
# Needs jq and taskset. On 2 cores shared with other jobs the balls/s of
# W ≥ 2 measure the machine, not the code: run it on an idle many-core one.
set -eu
mode=${1:-racy}
n=${2:-1048576}
m=${3:-33554432}
workers=${4:-1 2 4 8 16}
balloc=${BALLOC:-bin/balloc}
cpus=$(nproc)
printf '# two-choice, n = %s, m = %s, mode %s, %s CPU(s), balloc %s\n' "$n" "$m" "$mode" "$cpus" "$balloc"
printf '%-4s %-6s %-12s %-28s %-5s %-10s %-10s %-10s %s\n' W cores balls/s "age p50/p90/p99/max (1/256)" gap "emul. gap" "replay gap" "iid gap" \
	"| traced: gap replay-gap age-p99/max preempted cost"
for w in $workers; do
	c=$w
	[ "$c" -gt "$cpus" ] && c=$cpus
	real=$(taskset -c "0-$((c - 1))" "$balloc" concurrent --process two-choice --bins "$n" --balls "$m" \
		--workers "$w" --mode "$mode" --compare=false --format json)
	emu=$("$balloc" concurrent --process two-choice --bins "$n" --balls "$m" --emulate "$w" --mode "$mode" --format json)
	r=$(printf '%s' "$real" | jq -r '.[0] | "\(.balls_per_s | floor) \(.age_p50)/\(.age_p90)/\(.age_p99)/\(.age_max) \(.gap)"')
	e=$(printf '%s' "$emu" | jq -r '.[0] | "\(.gap) \(.replay_gap) \(.iid_ages_gap)"')
	tr="–"
	if [ "$mode" = racy ] || [ "$mode" = cas ]; then
		if traced=$(taskset -c "0-$((c - 1))" "$balloc" concurrent --process two-choice --bins "$n" --balls "$m" \
			--workers "$w" --mode "$mode" --trace-ages --format json 2>/dev/null); then
			tr=$(printf '%s' "$traced" | jq -r '.[0] | "\(.gap) \(.replay_gap) \(.age_p99)/\(.age_max) \(.traced_preempted) \(.balls_per_s / .untraced_balls_per_s * 100 | floor / 100)×"')
		fi
	fi
	set -- $r $e
	printf '%-4s %-6s %-12s %-28s %-5s %-10s %-10s %-10s | %s\n' "$w" "$c" "$1" "$2" "$3" "$4" "$5" "$6" "$tr"
done
