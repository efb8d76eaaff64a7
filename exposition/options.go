package exposition

// Options, Result and what they hold: the engine's contract with its callers
// (exposition/lint reads a payload under Options and returns a Result).

// Options tune lint.Lint and lint.Rewrite (and so exposition/fix). The zero
// value is usable.
type Options struct {
	// BufferSize is the initial read buffer (default 1 MiB); it grows for a
	// longer line.
	BufferSize int
	// MaxBytes refuses a larger payload with an error (0: no limit).
	MaxBytes int64
	// MaxProblems caps the problems listed (default 10000); beyond it they are
	// counted per rule in Result.Suppressed and one problems-suppressed
	// problem says so.
	MaxProblems int
	// Family, when set, is asked what the caller wants of a metric family:
	// its samples kept in Result.Samples, NaN reported as value-nan. Lint
	// asks once per family, when it first meets the family, and keeps the
	// answer: never a call per sample. nil keeps nothing and allows NaN.
	Family func(name string) FamilyPolicy
	// MaxSamples caps the samples kept (default 20000); beyond it they are
	// only counted, in Result.SamplesNotKept.
	MaxSamples int
	// Note, when set, may reword a problem with what the caller knows of the
	// software that wrote the payload (a known quirk, a convention of its
	// own). Lint calls it as it records each problem, with the TYPE of the
	// problem's family ("" when it has none), and takes back the message
	// and the fix; the rule, severity and place stay Lint's. A clean line
	// never calls it.
	Note func(p Problem, familyType string) (message, fix string)
	// Designed, when set, names the problems the producer's own
	// specification requires (a convention it chose knowingly): they are
	// reported as info, so that --fail-on warning gates on what is wrong,
	// not on what the specification asks for.
	Designed func(p Problem) bool
	// MaxLineBytes caps one line (default DefaultMaxLineBytes): a longer
	// line is reported as line-too-long and skipped without being buffered,
	// so memory never depends on what one line holds.
	MaxLineBytes int
	// MaxLabels caps the labels of one sample (default DefaultMaxLabels);
	// a sample with more is reported as label-limit-exceeded.
	MaxLabels int
	// MaxFamilies caps the families tracked in full (default 10000): their
	// FamilyStat in Result.Families and the per-family rules (HELP,
	// naming). The families beyond it are still parsed as expfmt parses
	// them — the verdict and the line rules do not change — but only
	// counted, in Result.FamiliesNotTracked, and one families-not-tracked
	// problem says so: memory stays bounded whatever the cardinality.
	MaxFamilies int
	// SizeHint is the payload's size in bytes when the caller knows it (an
	// HTTP Content-Length); 0 asks the reader (a Len method, or the size of
	// a regular file). It only sizes the tables Lint grows as it reads.
	SizeHint int64
}

// Defaults of the per-line bounds, far above any real payload (real series
// carry a handful of labels on lines of a few hundred bytes); a payload
// beyond them is hostile or broken, and it must not cost memory in
// proportion to one line.
const (
	DefaultMaxLineBytes = 1 << 20
	DefaultMaxLabels    = 256
)

// FamilyStat describes one metric family as the payload declares it.
type FamilyStat struct {
	Name string `json:"name"`
	// Type as declared by TYPE, "untyped" when samples came without one.
	Type string `json:"type"`
	// Help: a HELP line with text was seen.
	Help bool `json:"help"`
	// Series is the number of sample lines (summaries and histograms count
	// each quantile, bucket, _sum and _count line): the cardinality.
	Series int `json:"series"`
	// Line is where the family first appears.
	Line int `json:"line"`
	// Labels are the label names seen, in order of first appearance.
	Labels []string `json:"labels,omitempty"`
}

// FamilyPolicy is what a caller wants of one metric family (Options.Family).
type FamilyPolicy struct {
	// Keep: keep the family's samples in Result.Samples.
	Keep bool
	// NoNaN: a NaN sample of the family is a value-nan warning, at the value.
	NoNaN bool
}

// Sample is one sample of a family the caller asked to keep.
type Sample struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
	Value  float64           `json:"value"`
	Line   int               `json:"line"`
}

// Result is what Lint found.
type Result struct {
	Problems []Problem    `json:"problems"`
	Families []FamilyStat `json:"families"`
	// Series is the number of sample lines, Lines the number of lines.
	Series int   `json:"series"`
	Lines  int   `json:"lines"`
	Bytes  int64 `json:"bytes"`
	// Parseable: no error-level problem, so expfmt parses the payload.
	Parseable bool `json:"parseable"`
	// Errors, Warnings and Infos count Problems (suppressed ones included).
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	// Suppressed counts, per rule, the problems beyond Options.MaxProblems.
	Suppressed map[string]int `json:"suppressed,omitempty"`
	// Samples are the samples of the families Options.Family keeps, in
	// payload order, up to Options.MaxSamples; SamplesNotKept counts the
	// others.
	Samples        []Sample `json:"-"`
	SamplesNotKept int      `json:"samples_not_kept,omitempty"`
	// FamiliesNotTracked counts the families beyond Options.MaxFamilies:
	// parsed, not listed in Families nor checked by the per-family rules.
	FamiliesNotTracked int `json:"families_not_tracked,omitempty"`
}
