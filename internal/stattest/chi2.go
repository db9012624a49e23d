// Package stattest holds the χ² tests that balloc's statistical tests share:
// an observed sample against an exact law, and two samples against each
// other, both pooling sparse cells and judged at false-alarm probability
// 1e-4.
package stattest

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Alpha is the false-alarm probability of every threshold here.
const Alpha = 1e-4

// Limit is the χ² threshold on df degrees of freedom at Alpha.
func Limit(df int) float64 { return distuv.ChiSquared{K: float64(df)}.Quantile(1 - Alpha) }

// Law compares observed counts (trials in all) with an exact law, pooling
// the outcomes of expected count below 5 into one cell, and returns the
// statistic, its threshold and its degrees of freedom. An outcome outside the
// law is a bug, not noise: the statistic is +Inf. With fewer than two cells
// there is nothing to test and it returns zeros.
func Law[K comparable](law map[K]float64, obs map[K]int, trials int) (stat, limit float64, df int) {
	for k := range obs {
		if _, ok := law[k]; !ok {
			return math.Inf(1), 0, 0
		}
	}
	var pooledE, pooledO float64
	for k, p := range law {
		e, o := p*float64(trials), float64(obs[k])
		if e < 5 {
			pooledE += e
			pooledO += o
			continue
		}
		stat += (o - e) * (o - e) / e
		df++
	}
	if pooledE > 0 {
		stat += (pooledO - pooledE) * (pooledO - pooledE) / pooledE
		df++
	}
	df--
	if df < 1 {
		return 0, 0, df
	}
	return stat, Limit(df), df
}

// TwoSample tests whether two samples of a discrete value (counts by value)
// come from the same law: a 2×k contingency χ², pooling the values expected
// fewer than 5 times in the smaller sample into one cell.
func TwoSample[K comparable](a, b map[K]int) (stat, limit float64, df int) {
	na, nb := 0, 0
	keys := map[K]bool{}
	for k, c := range a {
		na += c
		keys[k] = true
	}
	for k, c := range b {
		nb += c
		keys[k] = true
	}
	var cells [][2]float64
	var pool [2]float64
	for k := range keys {
		ca, cb := float64(a[k]), float64(b[k])
		if (ca+cb)*float64(min(na, nb))/float64(na+nb) < 5 {
			pool[0] += ca
			pool[1] += cb
			continue
		}
		cells = append(cells, [2]float64{ca, cb})
	}
	if pool[0]+pool[1] > 0 {
		cells = append(cells, pool)
	}
	for _, c := range cells {
		tot := c[0] + c[1]
		ea := tot * float64(na) / float64(na+nb)
		eb := tot * float64(nb) / float64(na+nb)
		stat += (c[0]-ea)*(c[0]-ea)/ea + (c[1]-eb)*(c[1]-eb)/eb
	}
	df = len(cells) - 1
	if df < 1 {
		return 0, 0, 0
	}
	return stat, Limit(df), df
}
