// Package exposition tokenizes and lints the Prometheus text exposition
// format, for any producer.
//
// Lint streams over the payload once, with one reused buffer and no
// allocation per line on the hot path, and reports every problem with its
// line and column — not only the first, as expfmt and promtool do. Its
// verdict agrees with expfmt.NewTextParser(model.UTF8Validation): a payload
// without error-level problems parses, and a payload expfmt rejects has an
// error at the line expfmt names (FuzzLintAgreesWithExpfmt). The package
// is the bottom layer and imports nothing of its module: exposition/fix
// rewrites the label values and HELP texts that break the format, through
// Rewrite.
//
// What a caller knows of one producer stays with the caller and reaches
// Lint through two hooks: Options.Family asks, once per family, which
// samples to keep for the caller's own analysis (and where NaN is a
// problem); Options.Note rewords a problem with a producer's known quirk.
// Without them Lint keeps no sample and says only what the format and
// promlint's conventions say.
package exposition

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Options tune Lint and Rewrite (and so exposition/fix). The zero value is usable.
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
	// maxLineProblems caps the problems one line lists; beyond it they are
	// counted per rule in Result.Suppressed (a 1 MiB HELP line could
	// otherwise hold half a million bad escapes).
	maxLineProblems = 100
)

func (o Options) withDefaults() Options {
	if o.BufferSize <= 0 {
		o.BufferSize = 1 << 20
	}
	if o.MaxProblems <= 0 {
		o.MaxProblems = 10000
	}
	if o.MaxSamples <= 0 {
		o.MaxSamples = 20000
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.MaxLabels <= 0 {
		o.MaxLabels = DefaultMaxLabels
	}
	if o.MaxFamilies <= 0 {
		o.MaxFamilies = 10000
	}
	return o
}

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

// Lint reads the payload and reports every problem. The error is only for
// I/O failures and the size limit; bad input is a problem, never an error.
func Lint(r io.Reader, opts Options) (*Result, error) {
	e := newEngine(opts)
	e.sizeHint = sizeOf(r, opts.SizeHint)
	err := e.run(r, nil)
	return e.result(), err
}

// sizeOf is the payload's expected size: the caller's hint, else what the
// reader says of itself (0: unknown).
func sizeOf(r io.Reader, hint int64) int64 {
	if hint > 0 {
		return hint
	}
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case *os.File:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return 0
}

type famState struct {
	name        string
	typ         mtype
	hasHelp     bool
	helpEmpty   bool
	helpLine    int
	typeLine    int
	firstLine   int
	firstSample int
	samples     int
	touched     bool
	nonContig   bool
	keep        bool
	noNaN       bool
	hasLe       bool
	spaceWarned bool
	labels      []string
	// the family's earlier runs of lines in the series log (seriesSet)
	run      logRun
	moreRuns []logRun
}

type sampleInfo struct {
	name     []byte
	nameOff  int
	value    float64
	valueOff int
}

type engine struct {
	opts Options

	fams   []famState
	famIdx map[string]int32

	// expfmt's state carried from line to line
	cur                    int32
	curBucket, curQuantile float64
	labelsInit             bool
	isHistCount, isHistSum bool

	// the current record
	rec            []byte
	n              int
	hasLF          bool
	line           int
	nlines         int // physical lines in rec
	strict         bool
	noMutate       bool
	failed         bool
	sRule          string
	sPos           int
	sMsg           string
	labels         []label
	arena          []byte
	sample         sampleInfo
	phantomName    []byte
	openValueAt    int
	openLabel      []byte
	sawSpaceBefore bool
	recFam         int32 // the family a HELP/TYPE/sample line of this record named
	budget         int   // bytes the raw-quote heuristic may still scan
	labelSet       map[string]struct{}
	quotedName     bool // the last name readName returned had a quoted part
	valueASCII     bool // the last label value read was all ASCII (no UTF-8 check needed)
	labelsInOrder  bool // the sample's labels are the first of its family's, in its order

	collectSpans bool
	spans        []Span

	pend     []Problem
	dropped  []string // rules of this record's problems beyond maxLineProblems
	dupSeen  bool     // this record already reported a duplicate label name
	problems []Problem
	counts   [3]int
	suppr    map[string]int

	lastFam     uint64 // famKey of the family of the last line booked
	lastFamName string
	hseed       uint64
	seen        seriesSet
	pairBuf     []byte

	// the line reader and the payload's expected size, to size the series log
	lr       *lineReader
	sizeHint int64

	// the last name setOrCreate resolved, and what to (a line names the
	// family of the line before it, nearly always)
	lastTok              []byte
	lastTokFam           int32
	lastTokH             uint64 // the spare's family then, when lastTokFam is the spare
	lastTokHC, lastTokHS bool

	// families beyond Options.MaxFamilies (families.go)
	spare         int32  // the record an untracked family is unpacked into (-1: none yet)
	untrackedFrom int    // the line of the first untracked family
	spareH        uint64 // the untracked family it holds (0: none)
	untracked     hashTable
	names         nameArena

	series, lines int
	bytes         int64

	kept        []Sample
	keptDropped int

	joinBuf []byte

	// the client that copies or rewrites each line (Rewrite), or nil
	rw Rewriter
}

func newEngine(opts Options) *engine {
	return &engine{
		opts:        opts.withDefaults(),
		famIdx:      make(map[string]int32, 512),
		cur:         -1,
		lastFam:     ^uint64(0),
		curBucket:   math.NaN(),
		curQuantile: math.NaN(),
		lastTokFam:  -1,
		spare:       -1,
		seen:        seriesSet{runFam: -1},
		hseed:       rand.Uint64(),
		labels:      make([]label, 0, 16),
		arena:       make([]byte, 0, 4096),
	}
}

type savedState struct {
	cur                    int32
	curBucket, curQuantile float64
	labelsInit             bool
	spareH                 uint64
	spareName              string
}

func (e *engine) save() savedState {
	s := savedState{cur: e.cur, curBucket: e.curBucket, curQuantile: e.curQuantile, labelsInit: e.labelsInit, spareH: e.spareH}
	if e.spareH != 0 {
		s.spareName = e.fams[e.spare].name
	}
	return s
}

func (e *engine) restore(s savedState) {
	e.cur, e.curBucket, e.curQuantile, e.labelsInit = s.cur, s.curBucket, s.curQuantile, s.labelsInit
	if s.spareH != 0 && e.spareH != s.spareH {
		// the line unpacked another untracked family: the spare holds the
		// one current before it again
		e.storeSpare()
		if i := e.untracked.Find(s.spareH); i >= 0 {
			e.loadSpare(s.spareH, s.spareName, e.untracked.State(i))
		}
	}
}

func (e *engine) setRecord(rec []byte, hasLF bool, line, nlines int) {
	e.rec, e.n, e.hasLF, e.line, e.nlines = rec, len(rec), hasLF, line, nlines
	e.arena = e.arena[:0]
	e.pend = e.pend[:0]
	e.dropped = e.dropped[:0]
	e.dupSeen = false
	e.failed = false
	e.sample = sampleInfo{}
	e.spans = e.spans[:0]
	e.sawSpaceBefore = false
	e.recFam = -1
	e.labelsInOrder = false
	e.budget = 16*len(rec) + 4096
	if len(e.labelSet) > 0 {
		clear(e.labelSet)
	}
}

// maxJoin is how many continuation lines a raw line feed may have split off.
const maxJoin = 3

func (e *engine) run(r io.Reader, w io.Writer) error {
	lr := newLineReader(r, e.opts.BufferSize, e.opts.MaxBytes)
	lr.SetMaxLine(e.opts.MaxLineBytes)
	e.lr = lr
	lineNo := 0
	for {
		s, end, hasLF, ok := lr.LineAt(0)
		if !ok {
			break
		}
		lineNo++
		if lr.Long() {
			e.tooLong(lr, lineNo)
			continue
		}
		rec := lr.Bytes(s, end)
		consumed := end
		if hasLF {
			consumed++
		}
		e.setRecord(rec, hasLF, lineNo, 1)
		st0 := e.save()
		e.strict = true
		st := e.parseRecord()
		if st == stOK && !e.failed {
			e.commit()
			if e.rw != nil {
				e.rw.Clean(rec, hasLF)
			}
			lr.Advance(consumed)
			continue
		}
		// The line fails: expfmt would stop here. Find every problem.
		sRule, sPos, sMsg := e.sRule, e.sPos, e.sMsg
		e.restore(st0)
		e.strict = false
		e.noMutate = e.rw != nil
		e.setRecord(rec, hasLF, lineNo, 1)
		e.collectSpans = true
		st = e.parseRecord()
		joined := 0
		if st == stOpenValue && hasLF {
			// Is the next line the rest of a sample a raw line feed split?
			e.joinBuf = append(e.joinBuf[:0], rec...)
			rel := consumed
			var jst status
			for k := 0; k < maxJoin; k++ {
				ns, ne, nLF, ok := lr.LineAt(rel)
				if !ok {
					break
				}
				next := lr.Bytes(ns, ne)
				if lr.Long() || lineSyntaxOK(next) {
					break
				}
				e.joinBuf = append(e.joinBuf, '\n')
				e.joinBuf = append(e.joinBuf, next...)
				rel = ne
				if nLF {
					rel++
				}
				e.restore(st0)
				e.setRecord(e.joinBuf, nLF, lineNo, k+2)
				jst = e.parseRecord()
				if jst != stOpenValue {
					joined = k + 1
					consumed = rel
					st = jst
					break
				}
				if !nLF {
					break
				}
			}
			if joined == 0 {
				// no continuation: parse the line alone again
				e.restore(st0)
				rec = lr.Bytes(s, end)
				e.setRecord(rec, hasLF, lineNo, 1)
				st = e.parseRecord()
			}
		}
		if st == stOpenValue {
			e.problem(RuleLabelValueUnterminated, e.openValueAt-1, e.openLabel, e.rec[e.openValueAt:],
				"label value has no closing quote on its line", `close the value with " and escape any quote inside it as \"`)
			if !e.hasLF {
				e.problem(RuleMissingFinalNewline, e.n, nil, nil, "the last line does not end in a line feed", "end the payload with a line feed")
			}
		}
		if !e.hasErrorPending() {
			// The lenient reading found nothing wrong: report what strict saw.
			e.problem(sRule, sPos, nil, nil, sMsg, "")
		}
		if e.rw != nil {
			e.rw.Failed(&Record{e: e, st0: st0, st: st, orig: e.rec, origLF: e.hasLF, line: e.line, nlines: e.nlines})
		} else if st == stOK {
			e.commit()
		} else {
			e.flushPending()
		}
		e.collectSpans = false
		e.noMutate = false
		lineNo += joined
		lr.Advance(consumed)
	}
	e.lines = lineNo
	e.bytes = lr.Total()
	if lr.Err() != nil {
		return lr.Err()
	}
	return nil
}

func (e *engine) hasErrorPending() bool {
	for _, rule := range e.dropped {
		if severityOf(rule) == SeverityError {
			return true
		}
	}
	for i := range e.pend {
		if e.pend[i].Severity == SeverityError {
			return true
		}
	}
	return false
}

// lineOf maps a record offset to a payload line.
func (e *engine) lineOf(pos int) int {
	if e.nlines == 1 {
		return e.line
	}
	if pos > e.n {
		pos = e.n
	}
	return e.line + bytes.Count(e.rec[:pos], []byte{'\n'})
}

func (e *engine) colOf(pos int) int {
	if pos > e.n {
		pos = e.n
	}
	if e.nlines > 1 {
		if k := bytes.LastIndexByte(e.rec[:pos], '\n'); k >= 0 {
			return pos - k
		}
	}
	return pos + 1
}

// tooLong reports a line longer than Options.MaxLineBytes and skips it
// without buffering it (a Rewriter copies it through unchanged). The expfmt state
// is left as it was: the line is not parsed.
func (e *engine) tooLong(lr *lineReader, lineNo int) {
	max := e.opts.MaxLineBytes
	p := Problem{Rule: RuleLineTooLong, Severity: severityOf(RuleLineTooLong), Line: lineNo, Col: max + 1,
		Message: "line is longer than " + strconv.Itoa(max) + " bytes, the limit; it is skipped, not checked",
		Fix:     defaultFix(RuleLineTooLong)}
	p.SetValue(lr.Bytes(0, min(maxDisplay+utf8.UTFMax, max)))
	p.ValueCut = true // the line goes on
	e.note(&p, typeNone)
	e.add(p)
	var w io.Writer
	if e.rw != nil {
		w = e.rw.Skipped(p)
	}
	_ = lr.SkipLine(w) // only w's error, which w keeps (Rewriter.Skipped)
}

// problem queues a problem of the current record.
func (e *engine) problem(rule string, pos int, lbl, value []byte, msg, fix string) {
	if len(e.pend) >= maxLineProblems {
		e.dropped = append(e.dropped, rule)
		return
	}
	p := Problem{
		Rule:     rule,
		Severity: severityOf(rule),
		Line:     e.lineOf(pos),
		Col:      e.colOf(pos),
		Family:   e.curName(),
		Message:  msg,
		Fix:      fix,
	}
	if lbl != nil {
		p.Label = DisplayValue(lbl)
	}
	if value != nil {
		p.SetValue(value)
	}
	if p.Fix == "" {
		p.Fix = defaultFix(rule)
	}
	e.note(&p, e.curType())
	e.pend = append(e.pend, p)
}

// warn queues a warning for a named family.
func (e *engine) warn(rule string, pos int, family, lbl string, value []byte, msg, fix string) {
	if e.noMutate {
		return
	}
	if len(e.pend) >= maxLineProblems {
		e.dropped = append(e.dropped, rule)
		return
	}
	p := Problem{Rule: rule, Severity: severityOf(rule), Line: e.lineOf(pos), Col: e.colOf(pos), Family: family, Label: lbl, Message: msg, Fix: fix}
	if value != nil {
		p.SetValue(value)
	}
	if e.opts.Note != nil {
		typ := typeNone
		if i, ok := e.famIdx[family]; ok {
			typ = e.fams[i].typ
		}
		e.note(&p, typ)
	}
	e.pend = append(e.pend, p)
}

// note lets Options.Note reword p with what the caller knows of the
// producer; typ is the TYPE of p's family. Only the message and the fix
// change, and the severity of a problem Options.Designed names (info).
func (e *engine) note(p *Problem, typ mtype) {
	if e.opts.Note != nil {
		p.Message, p.Fix = e.opts.Note(*p, typ.String())
	}
	if e.opts.Designed != nil && p.Severity != SeverityError && e.opts.Designed(*p) {
		p.Severity = SeverityInfo
	}
}

func (e *engine) flushPending() {
	for _, p := range e.pend {
		e.add(p)
	}
	e.pend = e.pend[:0]
	for _, rule := range e.dropped {
		e.suppress(rule)
	}
	e.dropped = e.dropped[:0]
}

// suppress counts a problem that is not listed.
func (e *engine) suppress(rule string) {
	e.counts[severityRank[severityOf(rule)]]++
	if e.suppr == nil {
		e.suppr = map[string]int{}
	}
	e.suppr[rule]++
}

func (e *engine) add(p Problem) {
	e.counts[severityRank[p.Severity]]++
	if len(e.problems) >= e.opts.MaxProblems {
		if e.suppr == nil {
			e.suppr = map[string]int{}
		}
		e.suppr[p.Rule]++
		return
	}
	e.problems = append(e.problems, p)
}

func (e *engine) result() *Result {
	e.finalizeFamilies()
	res := &Result{
		Series:         e.series,
		Lines:          e.lines,
		Bytes:          e.bytes,
		Suppressed:     e.suppr,
		Samples:        e.kept,
		SamplesNotKept: e.keptDropped,
	}
	if e.untracked.Len() > 0 {
		res.FamiliesNotTracked = e.untracked.Len()
		p := Problem{Rule: RuleFamiliesNotTracked, Severity: severityOf(RuleFamiliesNotTracked), Line: e.untrackedFrom, Col: 1,
			Message: strconv.Itoa(e.untracked.Len()) + " families from this line on are beyond Options.MaxFamilies = " + strconv.Itoa(e.opts.MaxFamilies) +
				": they are parsed and checked line by line (the verdict is expfmt's), but not listed and not checked by the per-family rules (HELP, naming), and a duplicate series is found only among its family's contiguous lines",
			Fix: "export fewer metric families (a label instead of a name per object)"}
		e.note(&p, typeNone)
		e.add(p)
	}
	if len(e.suppr) > 0 {
		total := 0
		for _, c := range e.suppr {
			total += c
		}
		e.problems = append(e.problems, Problem{Rule: RuleProblemsSuppressed, Severity: SeverityWarning, Line: e.lines, Col: 1,
			Message: strconv.Itoa(total) + " more problems are not listed (at most Options.MaxProblems = " + strconv.Itoa(e.opts.MaxProblems) + " in all, " + strconv.Itoa(maxLineProblems) + " per line, one duplicate label name per line); see suppressed counts per rule"})
		e.note(&e.problems[len(e.problems)-1], typeNone)
		e.counts[1]++
	}
	SortProblems(e.problems)
	res.Problems = e.problems
	if res.Problems == nil {
		res.Problems = []Problem{}
	}
	res.Errors, res.Warnings, res.Infos = e.counts[0], e.counts[1], e.counts[2]
	res.Parseable = res.Errors == 0
	if len(e.famIdx) > 0 {
		res.Families = make([]FamilyStat, 0, len(e.famIdx))
	}
	for i := range e.fams {
		if int32(i) == e.spare {
			continue
		}
		f := &e.fams[i]
		typ := f.typ.String()
		res.Families = append(res.Families, FamilyStat{Name: f.name, Type: typ, Help: f.hasHelp, Series: f.samples, Line: f.firstLine, Labels: f.labels})
	}
	sort.Slice(res.Families, func(i, j int) bool { return res.Families[i].Name < res.Families[j].Name })
	return res
}
