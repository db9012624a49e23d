#!/bin/sh
# Haar drift against greedy on cycle:n at stationarity.
#
# Greedy on a cycle is a one-dimensional surface grown by noise and local
# smoothing (Edwards–Wilkinson): its longest mode relaxes after Θ(n³) balls
# (at n = 256 the load variance levels off after about n³/8), and at
# stationarity its load profile is a random-walk bridge, so
# its gap grows like √n. At m = 1000·n (experiments/haar.toml) it is far from
# there for n ≥ 2^9. Haar's sibling differences relax within about 64·n²
# balls (the root's, the slowest). So each strategy runs to its own
# stationarity, with 16 checkpoints:
#
#   n = 2^6 … 2^11   greedy and haar m = n³/4            6 trials
#   n = 2^12         greedy n³/4, haar 64·n²              6 trials
#   n = 2^13         greedy n³/8, haar 64·n²              4 trials
#   n = 2^14         greedy n³/10, haar 64·n²             2 trials
#
#   sh bench/haar-saturation.sh [KMAX] [FORMAT]   n = 2^6 … 2^KMAX (default 11), FORMAT table or jsonl
#
# With jsonl, the gaps at the checkpoints of the second half of each run
# can be averaged: bench/README.md quotes those means. On 2 cores:
# KMAX = 11 about 4 minutes, 12 about 8, 13 about 21, 14 about 35 more.
set -eu
kmax=${1:-11}
format=${2:-table}
balloc=${BALLOC:-bin/balloc}
k=6
while [ "$k" -le "$kmax" ]; do
	n=$((1 << k))
	mg=$((n * n * n / 4))
	mh=$((n * n * n / 4))
	trials=6
	[ "$k" -ge 12 ] && mh=$((64 * n * n))
	[ "$k" -ge 13 ] && mg=$((n * n * n / 8)) && trials=4
	[ "$k" -ge 14 ] && mg=$((n * n * n / 10)) && trials=2
	for s in greedy haar; do
		m=$mg
		[ "$s" = haar ] && m=$mh
		"$balloc" run --process graphical --graph "cycle:$n" --strategy "$s" --balls "$m" \
			--trials "$trials" --checkpoints 16 --progress never --format "$format"
	done
	k=$((k + 1))
done
