package theory

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// Fluid limits (mean-field ODEs). With t = m/n the number of balls per bin,
// let s_i(t) be the fraction of bins with load at least i. As n → ∞ with t
// fixed, s_i converges to the solution of a system of ODEs (Kurtz's theorem;
// Mitzenmacher, "The Power of Two Choices in Randomized Load Balancing",
// 1996, ch. 3), from s_0 = 1 and s_i(0) = 0 for i ≥ 1:
//
//	one-choice     ds_i/dt = s_{i-1} − s_i            (solution: P(Poisson(t) ≥ i))
//	d-choice       ds_i/dt = s_{i-1}^d − s_i^d
//	(1+β)          ds_i/dt = (1−β)(s_{i-1} − s_i) + β(s_{i-1}² − s_i²)  (core/process)
//	always-go-left per group g (fraction x_{g,i} of group g, s_i = mean over g):
//	               dx_{g,i}/dt = d·(x_{g,i-1} − x_{g,i})·∏_{h<g} x_{h,i}·∏_{h>g} x_{h,i-1}
//	               (a ball joins group g at load i−1 when g's sample has load
//	               i−1, every group left of g has load ≥ i, every group right
//	               of g load ≥ i−1: ties go left)
//	two-thinning   ds_i/dt = (s_{i-1} − s_i)·(1[i−1 < K] + s_K),  K = ⌈t + θ⌉
//	               (the first bin is kept iff its load < t + θ, i.e. < K;
//	               rejected with probability s_K, then a uniform second bin)
//	g-adv-comp, g-myopic-comp, sigma-noisy-load, rho-noisy-comp (compare.go)
//	               ds_i/dt = 2 p_{i-1} Σ_b p_b pick(i−1−b),  p_k = s_k − s_{k+1}
//	               (pick(δ): the first of two samples, δ heavier, is taken)
//
// The right-hand side of level i depends on levels i−1 and i (and K), so the
// system is solved on a window of levels that moves with the mass: below it
// s = 1 to double precision, above it s = 0. Steps are classical RK4.
//
// Heavy load. Every system above is equivariant under "one unit of time
// later, one level up" (for two-thinning K moves up by one too), so once the
// profile at time j+1 equals the profile at time j shifted up one level, the
// solution is that travelling wave forever and the integration jumps to the
// end. This makes t = m/n = 10^6 as cheap as t = 100 for the processes whose
// gap stays bounded; one-choice, which spreads like √t, has a closed form.

// Profile is a fluid-limit prediction at one time.
type Profile struct {
	Base  int       // At(i) = 1 for i < Base
	S     []float64 // At(Base+k) = S[k]; 0 beyond
	Model string    // what the limit is, for output; empty: the mean-field ODE
}

// At returns the predicted fraction of bins with load ≥ i.
func (p Profile) At(i int) float64 {
	switch k := i - p.Base; {
	case k < 0:
		return 1
	case k >= len(p.S):
		return 0
	default:
		return p.S[k]
	}
}

// Top is the highest level with a positive prediction.
func (p Profile) Top() int { return p.Base + len(p.S) - 1 }

const (
	// fluidOne: a bottom level at or above it is taken as full and leaves
	// the window. Near 1, s_{i-1}^d − s_i^d is rounding noise, so waiting for
	// an exact 1 would keep every level ever touched; the mass this moves is
	// below 1e-12 per level.
	fluidOne  = 1 - 1e-12
	fluidZero = 1e-300 // below: a level is empty
	// fluidPad zero levels stay on top of the window: one RK4 step carries
	// mass up at most four levels (one per stage), so the step is computed
	// on every level it can reach.
	fluidPad = 4
	// fluidWaveTol: the largest change over one period, level by level, at
	// which the profile is taken to be a travelling wave. Dropping full
	// levels perturbs the profile by about 5e-13 per period, a floor that
	// the change never goes below.
	fluidWaveTol  = 1e-11
	fluidWaveFull = 1 - 1e-10
)

// FluidOneChoice is the closed form P(Poisson(t) ≥ i) = P(i, t), the
// regularised lower incomplete gamma function.
func FluidOneChoice(t float64) Profile {
	if t == 0 {
		return Profile{Base: 1}
	}
	at := func(i int) float64 { return mathext.GammaIncReg(float64(i), t) }
	base := max(1, int(t))
	for base > 1 && at(base-1) < fluidOne {
		base--
	}
	for at(base) >= fluidOne {
		base++
	}
	p := Profile{Base: base}
	for i := base; ; i++ {
		v := at(i)
		if v < fluidZero {
			break
		}
		p.S = append(p.S, v)
	}
	return p
}

// FluidDChoice solves ds_i/dt = s_{i-1}^d − s_i^d.
func FluidDChoice(d int, t float64) Profile {
	pow := func(x float64) float64 { return powInt(x, d) }
	return Solve(1, t, Step(d), nil,
		func(_ float64, w *Window, ds [][]float64) {
			for k := range ds[0] {
				i := w.base + k
				ds[0][k] = pow(w.At(0, i-1)) - pow(w.At(0, i))
			}
		})
}

// FluidAlwaysGoLeft solves Vöcking's per-group system and averages the groups.
func FluidAlwaysGoLeft(d int, t float64) Profile {
	p := Solve(d, t, Step(d), nil,
		func(_ float64, w *Window, ds [][]float64) {
			dd := float64(d)
			for k := range ds[0] {
				i := w.base + k
				for g := range d {
					v := dd * (w.At(g, i-1) - w.At(g, i))
					for h := range d {
						switch {
						case h < g:
							v *= w.At(h, i)
						case h > g:
							v *= w.At(h, i-1)
						}
					}
					ds[g][k] = v
				}
			}
		})
	return p
}

// FluidTwoThinning solves the Two-Thinning system; its right-hand side
// changes where t + θ crosses an integer, and steps stop exactly there.
func FluidTwoThinning(theta, t float64) Profile {
	kAt := func(tt float64) int { return int(math.Ceil(tt + theta)) }
	// The next time after tt at which ⌈tt + θ⌉ changes: tt + θ reaches the
	// integer K (K included in the old stretch, since load < K uses K).
	next := func(tt float64) float64 {
		k := math.Floor(tt+theta) + 1
		return k - theta
	}
	var kSeg int
	stretches := &Stretches{
		next:  next,
		begin: func(a, b float64) { kSeg = kAt((a + b) / 2) }, // constant on (a, b)
	}
	return Solve(1, t, Step(2), stretches, func(_ float64, w *Window, ds [][]float64) {
		reject := w.At(0, kSeg)
		for k := range ds[0] {
			i := w.base + k
			keep := 0.0
			if i-1 < kSeg {
				keep = 1
			}
			ds[0][k] = (w.At(0, i-1) - w.At(0, i)) * (keep + reject)
		}
	})
}

// Step is the RK4 step for systems whose rates are at most about d per
// unit time: h·d = 1/16 keeps RK4 deep inside its stability region, and the
// tests check that halving the step moves the profile by less than 1e-8.
func Step(d int) float64 { return 1 / (16 * float64(max(d, 2)) * fluidRefine) }

// fluidRefine divides every step; tests raise it to check convergence.
var fluidRefine = 1.0

func powInt(x float64, d int) float64 {
	r := 1.0
	for ; d > 0; d >>= 1 {
		if d&1 != 0 {
			r *= x
		}
		x *= x
	}
	return r
}

// Window holds levels base, base+1, … of each group; levels below are
// 1 and levels above are 0.
type Window struct {
	base int
	s    [][]float64 // s[g][k] is group g's level base+k
}

func (w *Window) clone() *Window {
	c := &Window{base: w.base, s: make([][]float64, len(w.s))}
	for g := range w.s {
		c.s[g] = append([]float64(nil), w.s[g]...)
	}
	return c
}

// isShiftOf reports whether w is p moved up one level, to fluidWaveTol.
func (w *Window) isShiftOf(p *Window) bool {
	lo := min(w.base, p.base+1)
	hi := max(w.base+len(w.s[0]), p.base+1+len(p.s[0]))
	for g := range w.s {
		for i := lo; i <= hi; i++ {
			a, b := w.At(g, i), p.At(g, i-1)
			if a >= fluidWaveFull || b >= fluidWaveFull {
				// Nearly full levels are where the window drops levels (at
				// fluidOne), which moves them by up to 1e-12 from one period
				// to the next; they hold no information the wave lacks.
				continue
			}
			if math.Abs(a-b) > fluidWaveTol {
				return false
			}
		}
	}
	return true
}

// Base is the lowest level the window holds; every level below is full.
func (w *Window) Base() int { return w.base }

// At is s_i of group g: 1 below the window, 0 above it.
func (w *Window) At(g, i int) float64 {
	switch k := i - w.base; {
	case k < 0:
		return 1
	case k >= len(w.s[g]):
		return 0
	default:
		return w.s[g][k]
	}
}

// Stretches describes a right-hand side that is smooth only on
// stretches of time: next(t) is the end of the stretch starting at t, and
// begin(a, b) is called before (a, b) is integrated so the system can fix
// its constants for it.
type Stretches struct {
	next  func(t float64) float64
	begin func(a, b float64)
}

// NewStretches is the Stretches of next and begin, for systems defined
// outside this package (twinning's threshold ⌈t⌉).
func NewStretches(next func(t float64) float64, begin func(a, b float64)) *Stretches {
	return &Stretches{next: next, begin: begin}
}

// Solve integrates a fluid system of `groups` groups from the empty
// state to time T with RK4 steps of at most h, stopping exactly at the ends
// of stretches when st is non-nil, and returns the mean profile.
func Solve(groups int, T, h float64, st *Stretches,
	f func(t float64, w *Window, ds [][]float64)) Profile {
	w := &Window{base: 1, s: make([][]float64, groups)}
	for g := range w.s {
		w.s[g] = make([]float64, fluidPad)
	}
	// Stage buffers, reshaped when the window grows or shrinks.
	var k1, k2, k3, k4, tmp [][]float64
	reshape := func() {
		if k1 != nil && len(k1[0]) == len(w.s[0]) {
			return
		}
		mk := func() [][]float64 {
			m := make([][]float64, groups)
			for g := range m {
				m[g] = make([]float64, len(w.s[g]))
			}
			return m
		}
		k1, k2, k3, k4, tmp = mk(), mk(), mk(), mk(), mk()
	}
	// stage sets out = f(t, s + dt·from).
	stage := func(t, dt float64, from, out [][]float64) {
		saved := w.s
		if from != nil {
			for g := range tmp {
				for k := range tmp[g] {
					tmp[g][k] = saved[g][k] + dt*from[g][k]
				}
			}
			w.s = tmp
		}
		f(t, w, out)
		w.s = saved
	}
	t := 0.0
	var prev *Window // the window at the last integer time
	for t < T {
		end := min(T, math.Floor(t)+1) // integer times are checked for the wave
		if st != nil {
			end = min(end, st.next(t))
			st.begin(t, end)
		}
		steps := max(1, int(math.Ceil((end-t)/h)))
		dt := (end - t) / float64(steps)
		for range steps {
			reshape()
			stage(t, 0, nil, k1)
			stage(t+dt/2, dt/2, k1, k2)
			stage(t+dt/2, dt/2, k2, k3)
			stage(t+dt, dt, k3, k4)
			full := true
			for g := range w.s {
				for k := range w.s[g] {
					v := w.s[g][k] + dt/6*(k1[g][k]+2*k2[g][k]+2*k3[g][k]+k4[g][k])
					v = min(max(v, 0), 1)
					if v < fluidZero {
						v = 0
					}
					w.s[g][k] = v
				}
				full = full && w.s[g][0] >= fluidOne
			}
			// Keep fluidPad empty levels on top.
			for {
				top := false
				for g := range w.s {
					for _, v := range w.s[g][len(w.s[g])-fluidPad:] {
						top = top || v > 0
					}
				}
				if !top {
					break
				}
				for g := range w.s {
					w.s[g] = append(w.s[g], 0)
				}
			}
			if full {
				for g := range w.s {
					w.s[g] = w.s[g][1:]
				}
				w.base++
			}
			t += dt
		}
		t = end
		if t == math.Floor(t) && t < T {
			if prev != nil && w.isShiftOf(prev) {
				jump := math.Floor(T) - t
				w.base += int(jump)
				t += jump
				prev = nil
				continue
			}
			prev = w.clone()
		}
	}
	p := Profile{Base: w.base, S: make([]float64, len(w.s[0]))}
	for g := range w.s {
		for k, v := range w.s[g] {
			p.S[k] += v / float64(groups)
		}
	}
	for len(p.S) > 0 && p.S[len(p.S)-1] == 0 {
		p.S = p.S[:len(p.S)-1]
	}
	return p
}
