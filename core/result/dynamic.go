package result

// Dynamic is what a run where balls leave reports beside the usual fields
// (which then describe the final state: balls is the balls present, the gap
// is max load − balls/n, and a checkpoint's balls counts the events or
// steps run). Only dynamic runs carry it.
type Dynamic struct {
	// Model is "supermarket" or "deletions".
	Model string `json:"model"`
	// Events run: the supermarket's events (arrivals and potential
	// departures), or the deletion model's steps.
	Events uint64 `json:"events"`
	// Arrivals placed balls; Departures removed one (the supermarket's
	// departures drawn at an empty queue, and deletions with no ball
	// present, are neither).
	Arrivals   uint64 `json:"arrivals"`
	Departures uint64 `json:"departures"`
	// The supermarket only, from here on.
	ArrivalRate float64 `json:"arrival_rate,omitempty"`
	// Time is the expected time of the last event, events/(n(1+λ)); Warmup
	// the time left out of the averages, from the start.
	Time   float64 `json:"time,omitempty"`
	Warmup float64 `json:"warmup,omitempty"`
	// AtLeast[i−1] is the time-averaged fraction of bins with load ≥ i after
	// the warmup, AtLeastSE its standard error from Batches batch means, and
	// FinalAtLeast the fraction at the end, for i = 1 … while non-zero.
	AtLeast      []float64 `json:"at_least,omitempty"`
	AtLeastSE    []float64 `json:"at_least_se,omitempty"`
	FinalAtLeast []float64 `json:"final_at_least,omitempty"`
	Batches      int       `json:"batches,omitempty"`
	// MeanQueue is the time-averaged balls per bin (Σ_i AtLeast), and
	// Sojourn the mean time a ball spends in the system by Little's law,
	// MeanQueue/λ; each with its batch-means standard error.
	MeanQueue   float64 `json:"mean_queue,omitempty"`
	MeanQueueSE float64 `json:"mean_queue_se,omitempty"`
	// BatchLag1 is the lag-1 autocorrelation of the batches' mean queue
	// lengths: near 0 when the batches are much longer than the relaxation
	// time, as the standard errors assume; beyond 2/√Batches they are
	// understated.
	BatchLag1 float64 `json:"batch_lag1"`
	Sojourn   float64 `json:"sojourn,omitempty"`
	SojournSE float64 `json:"sojourn_se,omitempty"`
	// MaxEver is the largest load any bin held during the run.
	MaxEver float64 `json:"max_ever,omitempty"`
	// FixedPoint is the mean field's fixed point π_i beside AtLeast (with
	// --theory).
	FixedPoint []float64 `json:"fixed_point,omitempty"`
}
