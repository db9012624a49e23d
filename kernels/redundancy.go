package kernels

// Redundancy-d (Gardner, Harchol-Balter, Scheller-Wolf, Velednitsky and
// Zbarsky, "Redundancy-d: the power of d choices for redundancy",
// Operations Research 65(4), 2017) in the supermarket model: jobs arrive
// at rate λn; each is copied to d distinct servers drawn uniformly at
// random; every server serves the copies in its queue first come, first
// served, at rate 1 (exponential job sizes, a copy's service independent of
// its siblings'); when a copy completes, its job is done and the job's other
// d − 1 copies leave their queues, wherever they stand (served or waiting).
//
// Uniformized at rate n(1+λ) as the supermarket's loops (kernels/dynamic.go):
// each event is an arrival with probability λ/(1+λ), else a uniformly
// random server completes the copy at its head, if it holds one. The head
// copy's remaining service is exponential whatever it has received, so the
// jump chain is the continuous-time system watched at its events.
//
// A server's load is the copies in its queue; a job present has exactly d
// copies present, so the copies in the system are d times the jobs at every
// moment, and the time-averaged jobs per server is the copies' mean queue
// over d.
//
// Stream per event: the arrival coin (Bernoulli.Flip); an arrival then d
// PCG32.Bounded(n) draws, a draw equal to an earlier server of the job
// drawn again (d distinct servers, uniform); a departure one
// PCG32.Bounded(n).

// Redundancy is a Redundancy-d trial's queues. Copy c of job slot j is
// c = j·d + k, k < d; each server's queue is a doubly linked list of copies.
type Redundancy struct {
	d      int
	arrive Bernoulli
	// Loads are the copies in each server's queue.
	Loads      []uint32
	head, tail []int32 // per server: its first and last copy, −1 when empty
	next, prev []int32 // per copy, −1 at an end
	server     []uint32
	free       []int32 // job slots not in use
	picked     []uint32
	// Jobs are present; Arrived, Completed count jobs; Cancelled counts
	// the copies that left unserved (d − 1 a completed job).
	Jobs, Arrived, Completed, Cancelled uint64
}

// NewRedundancy returns n empty servers (1 ≤ d ≤ n ≤ MaxBins) at arrival
// rate λ per server (0 < λ < 1).
func NewRedundancy(n uint64, d int, lambda float64) (*Redundancy, error) {
	a, err := NewBernoulli(lambda / (1 + lambda))
	if err != nil {
		return nil, err
	}
	q := &Redundancy{d: d, arrive: a, Loads: make([]uint32, n), head: make([]int32, n), tail: make([]int32, n), picked: make([]uint32, d)}
	for i := range q.head {
		q.head[i], q.tail[i] = -1, -1
	}
	return q, nil
}

// Run runs count events, keeping t (the copies per server) up to date.
func (q *Redundancy) Run(r *PCG32, count uint64, t *Tally) {
	n := uint32(len(q.Loads))
	d := q.d
	for ; count > 0; count-- {
		if !q.arrive.Flip(r) {
			if h := q.head[r.Bounded(n)]; h >= 0 {
				job := h / int32(d)
				for c := job * int32(d); c < (job+1)*int32(d); c++ {
					q.unlink(c, t)
				}
				q.free = append(q.free, job)
				q.Jobs--
				q.Completed++
				q.Cancelled += uint64(d - 1)
			}
			t.Event++
			continue
		}
		var job int32
		if k := len(q.free); k > 0 {
			job = q.free[k-1]
			q.free = q.free[:k-1]
		} else { // a new slot: the arrays grow by doubling, not per event
			job = int32(len(q.server) / d)
			for range d {
				q.next = append(q.next, -1)
				q.prev = append(q.prev, -1)
				q.server = append(q.server, 0)
			}
		}
		for k := range d {
			i := r.Bounded(n)
			for j := 0; j < k; j++ {
				if q.picked[j] == i { // drawn before: draw again
					i, j = r.Bounded(n), -1
				}
			}
			q.picked[k] = i
			c := job*int32(d) + int32(k)
			q.server[c], q.next[c], q.prev[c] = i, -1, q.tail[i]
			if q.tail[i] >= 0 {
				q.next[q.tail[i]] = c
			} else {
				q.head[i] = c
			}
			q.tail[i] = c
			t.up(uint64(q.Loads[i]))
			q.Loads[i]++
		}
		q.Jobs++
		q.Arrived++
		t.Event++
	}
}

// unlink takes copy c out of its server's queue.
func (q *Redundancy) unlink(c int32, t *Tally) {
	i := q.server[c]
	p, x := q.prev[c], q.next[c]
	if p >= 0 {
		q.next[p] = x
	} else {
		q.head[i] = x
	}
	if x >= 0 {
		q.prev[x] = p
	} else {
		q.tail[i] = p
	}
	t.down(uint64(q.Loads[i]))
	q.Loads[i]--
}
