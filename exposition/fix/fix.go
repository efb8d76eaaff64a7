// Package fix repairs a Prometheus text payload: label values and HELP
// texts escaped as the format wants, a sample a raw line feed split
// rejoined, a missing final line feed added. It stands on the linter
// (package exposition): every line passes through exposition.Rewrite, and a
// repaired line is kept only when the linter's own engine parses it from
// the state before the line. A repair that would change what a sample says
// is refused, and an OpenMetrics payload is refused as a whole. Its tests
// live in exposition's directory beside the fuzz corpus they share.
package fix

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/dorisdiag/dorisdiag/exposition"
)

// Change is one line Fix rewrote.
type Change struct {
	Line  int    `json:"line"`
	Label string `json:"label,omitempty"`
	// What names the repair: "escaped label value", "escaped HELP text",
	// "rejoined a sample split by a raw line feed", "added the final line feed".
	What string `json:"what"`
	// Before and After are the value's text as the payload holds it and as
	// the output holds it: raw bytes, exposition-escaped only (a backslash
	// that After writes as \\ is two backslashes here), so that JSON's own
	// escaping is the only layer. Cut to about 80 bytes on a rune boundary;
	// Cut says so. Print them with DisplayValue.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	Cut    bool   `json:"cut,omitempty"`
}

// Report says what Fix changed and what it could not repair.
type Report struct {
	Changes []Change `json:"changes"`
	// Unrepaired are the errors on lines Fix left as they were.
	Unrepaired []exposition.Problem `json:"unrepaired"`
	// Refused lists the repairs Fix would not make: a rewrite that would
	// change what a sample says (its value, its timestamp or the text after
	// them, such as an OpenMetrics exemplar). The line is copied unchanged
	// and its errors are in Unrepaired.
	Refused []Refusal `json:"refused,omitempty"`
	// OK: every error was repaired, so expfmt parses the output.
	OK bool `json:"ok"`
	// Lines counts input lines; Bytes input bytes.
	Lines int   `json:"lines"`
	Bytes int64 `json:"bytes"`
}

// Fix copies the payload to w with every label value and HELP text escaped
// as the exposition format wants (\\, \" and \n in label values; \\ and \n in
// HELP) and everything else byte for byte. A raw line feed that split a
// sample is rejoined as \n inside the value; a missing final line feed is
// added. A value is read literally: a backslash that starts no valid escape
// is a backslash (producers that write values raw mean it so), so Go %q text such as \t becomes
// \\t, not a tab. A line that still does not parse after the repair is
// copied unchanged and reported in Unrepaired.
//
// Fix never changes a sample's value, timestamp or what follows them: a
// repair that would (a quote that, escaped, would swallow an OpenMetrics
// exemplar into the label value) is refused and listed in Refused. An
// OpenMetrics payload is refused as a whole with an *OpenMetricsError: its
// rules are not Prometheus text's, and what is written to w before the first
// sign of it must be discarded.
func Fix(r io.Reader, w io.Writer, opts exposition.Options) (Report, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	f := &fixer{w: bw}
	sniff := newSniffer(r)
	lines, n, err := exposition.Rewrite(sniff, opts, f)
	var om *OpenMetricsError
	if errors.As(err, &om) || errors.As(sniff.Err(), &om) {
		err = om
	}
	if ferr := bw.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("writing fixed payload: %w", ferr)
	}
	if err == nil && f.err != nil {
		err = f.err
	}
	rep := f.report
	rep.Lines, rep.Bytes = lines, n
	rep.OK = len(rep.Unrepaired) == 0 && err == nil
	if rep.Changes == nil {
		rep.Changes = []Change{}
	}
	if rep.Unrepaired == nil {
		rep.Unrepaired = []exposition.Problem{}
	}
	return rep, err
}

// Refusal is one repair Fix refused, and why.
type Refusal struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
	// Before and After are the sample's value, timestamp and trailing text as
	// the line reads now and as the repair would make it read.
	Before string `json:"before"`
	After  string `json:"after"`
}

type fixer struct {
	w      *bufio.Writer
	report Report
	err    error
}

func (f *fixer) write(b []byte, lf bool) {
	if f.err != nil {
		return
	}
	if _, err := f.w.Write(b); err != nil {
		f.err = fmt.Errorf("writing fixed payload: %w", err)
		return
	}
	if lf {
		if err := f.w.WriteByte('\n'); err != nil {
			f.err = fmt.Errorf("writing fixed payload: %w", err)
		}
	}
}

// Write copies a skipped line through, keeping the first write error.
func (f *fixer) Write(b []byte) (int, error) {
	f.write(b, false)
	return len(b), f.err
}

// Clean copies a line that parsed.
func (f *fixer) Clean(rec []byte, hasLF bool) { f.write(rec, hasLF) }

// Skipped copies a line too long to parse, unrepaired.
func (f *fixer) Skipped(p exposition.Problem) io.Writer {
	f.report.Unrepaired = append(f.report.Unrepaired, p)
	return f
}

// Failed handles a record that failed strict parsing: rewrite its spans,
// check that the result parses from the same state, else keep the original.
func (f *fixer) Failed(rec *exposition.Record) {
	orig := append([]byte(nil), rec.Bytes()...)
	origLF := rec.HasLF()
	line, nlines := rec.Line(), rec.Lines()
	lint := append([]exposition.Problem(nil), rec.Problems()...)
	spans := append([]exposition.Span(nil), rec.Spans()...)

	var out []byte
	var changes []Change
	prev := 0
	for _, sp := range spans {
		raw := orig[sp.Start:sp.End]
		var nv []byte
		if sp.Help {
			nv = escapeHelp(decodeLiteral(raw, true))
		} else {
			nv = escapeLabelValue(decodeLiteral(raw, false))
		}
		if bytes.Equal(nv, raw) {
			continue
		}
		out = append(out, orig[prev:sp.Start]...)
		out = append(out, nv...)
		prev = sp.End
		what := "escaped label value"
		if sp.Help {
			what = "escaped HELP text"
		} else if bytes.IndexByte(raw, '\n') >= 0 {
			what = "rejoined a sample split by a raw line feed (escaped it as \\n)"
		}
		before, cutB := exposition.CutValue(raw)
		after, cutA := exposition.CutValue(nv)
		c := Change{Line: line, What: what, Before: before, After: after, Cut: cutB || cutA}
		if sp.Label != nil {
			c.Label = exposition.DisplayValue(sp.Label)
		}
		changes = append(changes, c)
	}
	out = append(out, orig[prev:]...)
	if !origLF {
		changes = append(changes, Change{Line: line + nlines - 1, What: "added the final line feed"})
	}

	// A repair rewrites label values and HELP text only; one that moves
	// where the label set ends would change the sample's value, timestamp
	// or what follows them (an OpenMetrics exemplar "# {...} v" swallowed
	// into a label value, its value taken for the sample's): refuse it.
	refused := false
	if len(changes) > 0 {
		if before, after, changed := sampleTailChanged(orig, out); changed {
			refused = true
			f.report.Refused = append(f.report.Refused, Refusal{Line: line,
				Reason: "escaping the quotes would change the sample's value, timestamp or the text after them " +
					"(an exemplar is OpenMetrics, not Prometheus text): the line is left as it is",
				Before: before, After: after})
		}
	}

	// Does the repaired line parse, from the state before the line?
	if len(changes) > 0 && !refused && rec.Replace(out) {
		f.write(out, true)
		f.report.Changes = append(f.report.Changes, changes...)
		return
	}
	// No: copy the line unchanged, report why, and book it for the lint state.
	rec.Keep()
	for _, p := range lint {
		if p.Severity == exposition.SeverityError {
			f.report.Unrepaired = append(f.report.Unrepaired, p)
		}
	}
	f.write(orig, origLF)
}
