package fix

import (
	"bytes"
	"fmt"
	"io"
)

// OpenMetricsSign is the first line that shows a payload is OpenMetrics text
// (application/openmetrics-text), not Prometheus text: its rules differ (an
// exemplar after "# ", "# UNIT", "# EOF" as the last line, the types info,
// stateset, gaugehistogram and unknown), so the linter's verdicts and
// Fix's repairs, made for Prometheus text, do not apply to it.
type OpenMetricsSign struct {
	Line int    `json:"line"`
	What string `json:"what"`
}

// OpenMetricsError refuses an OpenMetrics payload.
type OpenMetricsError struct{ Sign OpenMetricsSign }

func (e *OpenMetricsError) Error() string {
	return fmt.Sprintf("line %d: %s: this is an OpenMetrics payload (application/openmetrics-text), "+
		"and only Prometheus text (text/plain; version=0.0.4) is linted and fixed", e.Sign.Line, e.Sign.What)
}

// openMetricsLine says what makes one line OpenMetrics, or "".
func openMetricsLine(line []byte) string {
	line = bytes.TrimRight(line, "\r")
	switch {
	case bytes.Equal(line, []byte("# EOF")):
		return `"# EOF" ends OpenMetrics text`
	case bytes.HasPrefix(line, []byte("# UNIT ")):
		return `"# UNIT" is OpenMetrics metadata`
	case bytes.HasPrefix(line, []byte("# TYPE ")):
		f := bytes.Fields(line[len("# TYPE "):])
		if len(f) == 2 {
			switch string(f[1]) {
			case "info", "stateset", "gaugehistogram", "unknown":
				return fmt.Sprintf("TYPE %s is an OpenMetrics type", f[1])
			}
		}
		return ""
	case len(line) > 0 && line[0] == '#':
		return ""
	}
	if _, ts, rest, ok := sampleTail(line); ok && ts == "#" && len(rest) > 0 && rest[0] == '{' {
		return `an exemplar ("# {...} value" after the sample) is OpenMetrics`
	}
	return ""
}

// DetectOpenMetrics returns the first sign that data is OpenMetrics text.
func DetectOpenMetrics(data []byte) (OpenMetricsSign, bool) {
	line := 0
	for len(data) > 0 {
		line++
		i := bytes.IndexByte(data, '\n')
		var l []byte
		if i < 0 {
			l, data = data, nil
		} else {
			l, data = data[:i], data[i+1:]
		}
		if w := openMetricsLine(l); w != "" {
			return OpenMetricsSign{Line: line, What: w}, true
		}
	}
	return OpenMetricsSign{}, false
}

// maxSniffLine bounds the part of a line the sniffer keeps across reads; a
// longer line is checked on its first bytes only (enough for every marker
// but an exemplar after a label set longer than this).
const maxSniffLine = 64 << 10

// sniffer passes a payload through and fails the read at the
// first OpenMetrics sign (Fix uses it: a repair made for Prometheus text
// would corrupt an OpenMetrics payload).
type sniffer struct {
	r     io.Reader
	carry []byte
	over  bool // the current line passed maxSniffLine
	line  int
	err   error
}

// newSniffer passes r through.
func newSniffer(r io.Reader) *sniffer { return &sniffer{r: r} }

// Err is the *OpenMetricsError the sniffer failed with, or nil.
func (s *sniffer) Err() error { return s.err }

func (s *sniffer) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	chunk := p[:n]
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		part := chunk
		if i >= 0 {
			part = chunk[:i]
		}
		if !s.over {
			room := maxSniffLine - len(s.carry)
			if len(part) > room {
				s.carry = append(s.carry, part[:room]...)
				s.over = true
			} else {
				s.carry = append(s.carry, part...)
			}
		}
		if i < 0 {
			break
		}
		s.endLine()
		if s.err != nil {
			return n, s.err
		}
		chunk = chunk[i+1:]
	}
	if err == io.EOF && len(s.carry) > 0 {
		s.endLine()
		if s.err != nil {
			return n, s.err
		}
	}
	return n, err
}

func (s *sniffer) endLine() {
	s.line++
	if w := openMetricsLine(s.carry); w != "" {
		s.err = &OpenMetricsError{Sign: OpenMetricsSign{Line: s.line, What: w}}
	}
	s.carry, s.over = s.carry[:0], false
}
