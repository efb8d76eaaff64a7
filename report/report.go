// Package report renders what diag computed: tables for people (colour only
// on a TTY), JSON for programs, markdown for CI comments, Prometheus text for
// node_exporter. It computes nothing and judges nothing: thresholds and
// severities come from diag (a Level, a Verdict, a finding's severity) and
// report maps them to colours and words.
//
// One renderer per format, registered once (registry.go):
//
//	type Doc interface{ Kind() string }              // a command's one typed document; Kind is the JSON "kind"
//	type Renderer func(w io.Writer, st Style, d Doc) error
//	Register(kind, format, renderer)                 // from an init() of the file that renders kind
//	Formats(kind) []Format                           // what -o accepts; json is generic unless NoJSON(kind)
//	Emit(w, st, format, doc)                         // what cmd calls, once per command (globalOptions.emit)
//
// A command builds its Doc (check.go CheckDoc, streams.go StreamsDoc and
// StreamDoc, headroom.go HeadroomDoc, snapshot.go SnapshotSummaryDoc; in the
// sub-packages, one per kind apart: report/mv MVListDoc and MVExplainDoc,
// report/explain ExplainDoc, report/demo DemoDoc, report/tso TSODecodeDoc,
// TSOEncodeDoc, TSODiffDoc, TSOLagDoc, TSOHeadroomDoc, report/metrics the
// metrics_* documents) and hands it over. Adding a format is one file registering a renderer per kind
// it supports, plus goldens; adding a command's output is one Doc type and its
// renderers. Markdown renderers ignore st (no colour in a CI comment).
//
// Style carries the render options cmd decided: colour and the terminal's
// width (report does no I/O). The table format fits the width (st.Table:
// borderless columns, names cut in the middle, the rightmost columns left to
// -o wide; prose wrapped); wide and markdown have none. Untrusted text is
// escaped twice over: by every cell writer (Sanitize) and by Emit over the
// whole of every human format (text.go); colour is added after, from
// markers only Style can write.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// SchemaVersion is the version of every JSON document dorisdiag prints.
// Bump it when a field changes meaning or disappears; adding a field does not.
//
//	1  the first version
//	2  every kind is written in snake_case: tso.decode, tso.encode, tso.diff,
//	   tso.lag, tso.headroom, metrics.lint, metrics.lint.snapshot,
//	   metrics.fix and metrics.scrape became tso_decode, …, metrics_scrape
const SchemaVersion = 2

// Format is an output format selected with -o.
type Format string

// The output formats. Each command says which it supports.
const (
	FormatTable    Format = "table"
	FormatWide     Format = "wide"
	FormatJSON     Format = "json"
	FormatMarkdown Format = "markdown"
	FormatProm     Format = "prom"
)

// formats declares the formats once: the order -o lists them in, and
// whether a person reads one (Human: paged, and its untrusted text escaped
// by Emit) or a program (JSON, Prometheus text: written as rendered).
var formats = []struct {
	format Format
	human  bool
}{
	{FormatTable, true},
	{FormatWide, true},
	{FormatJSON, false},
	{FormatMarkdown, true},
	{FormatProm, false},
}

// AllFormats lists every output format, in the order -o names them.
func AllFormats() []Format {
	out := make([]Format, len(formats))
	for i, f := range formats {
		out[i] = f.format
	}
	return out
}

// Human reports whether people read f (table, wide, markdown).
func (f Format) Human() bool {
	for _, d := range formats {
		if d.format == f {
			return d.human
		}
	}
	return false
}

// ParseFormat checks f against the formats a command supports.
func ParseFormat(f string, supported ...Format) (Format, error) {
	names := make([]string, len(supported))
	for i, s := range supported {
		if string(s) == f {
			return s, nil
		}
		names[i] = string(s)
	}
	return "", fmt.Errorf("output format %q is not supported here (want %s)", f, strings.Join(names, ", "))
}

// JSON writes v — which must encode as a JSON object — as one indented
// document whose first two fields are "schema_version" and "kind", so that
// every document dorisdiag prints is self-describing (design.md contracts).
func JSON(w io.Writer, kind string, v any) error {
	// No HTML escaping: the SQL in a finding's next step holds <, > and &,
	// and a program reading the JSON wants them as written.
	body, err := MarshalNoEscape(v)
	if err != nil {
		return fmt.Errorf("encoding %s JSON: %w", kind, err)
	}
	body = bytes.TrimSpace(body)
	if len(body) < 2 || body[0] != '{' {
		return fmt.Errorf("encoding %s JSON: top level is not an object", kind)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `{"schema_version":%d,"kind":%q`, SchemaVersion, kind)
	if rest := bytes.TrimSpace(body[1:]); len(rest) > 1 { // not just "}"
		buf.WriteByte(',')
	}
	buf.Write(body[1:])
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return fmt.Errorf("encoding %s JSON: %w", kind, err)
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// MarshalNoEscape marshals without HTML escaping (so "<" stays readable in SQL).
func MarshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
