package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// PromFamily is one gauge family of the `-o prom` output (node_exporter
// textfile collector). Values are computed by diag; this only writes them.
type PromFamily struct {
	Name    string // dorisdiag_...
	Help    string
	Type    string // gauge (default) or counter
	Samples []PromSample
}

// PromSample is one series.
type PromSample struct {
	Labels [][2]string // name, value; written in this order
	Value  float64
}

// WriteProm writes families sorted by name, each with HELP and TYPE, label
// values and HELP text escaped exactly as the exposition format requires
// (doris.md §8: `\` → `\\`, `"` → `\"`, line feed → `\n`; HELP: `\` and line
// feed only). Samples keep their given order. NaN is never written (the
// design forbids it): such a sample is skipped, and the caller documents it.
func WriteProm(w io.Writer, fams []PromFamily) error {
	sorted := append([]PromFamily(nil), fams...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	var b strings.Builder
	for _, f := range sorted {
		typ := f.Type
		if typ == "" {
			typ = "gauge"
		}
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", f.Name, EscapeHelp(f.Help), f.Name, typ)
		for _, s := range f.Samples {
			if math.IsNaN(s.Value) {
				continue
			}
			b.WriteString(f.Name)
			if len(s.Labels) > 0 {
				b.WriteByte('{')
				for i, l := range s.Labels {
					if i > 0 {
						b.WriteByte(',')
					}
					b.WriteString(l[0])
					b.WriteString(`="`)
					b.WriteString(EscapeLabelValue(l[1]))
					b.WriteByte('"')
				}
				b.WriteByte('}')
			}
			b.WriteByte(' ')
			b.WriteString(formatPromValue(s.Value))
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WritePromStyled is WriteProm with st's cluster label first on every
// sample (--cluster): two clusters' textfiles on one node_exporter never
// write the same series.
func WritePromStyled(w io.Writer, st Style, fams []PromFamily) error {
	return WritePromCluster(w, st.cluster, fams)
}

// WritePromCluster is WriteProm with cluster="NAME" first on every sample
// (none when name is "").
func WritePromCluster(w io.Writer, name string, fams []PromFamily) error {
	if name == "" {
		return WriteProm(w, fams)
	}
	out := make([]PromFamily, len(fams))
	for i, f := range fams {
		f.Samples = append([]PromSample(nil), f.Samples...)
		for j := range f.Samples {
			f.Samples[j].Labels = append([][2]string{{"cluster", name}}, f.Samples[j].Labels...)
		}
		out[i] = f
	}
	return WriteProm(w, out)
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

// EscapeLabelValue escapes a label value for the text exposition format.
// It is not Go's %q: `\t` or `\u00e9` would be rejected by the parser. A
// control character other than a line feed (a tab, ESC, CR in a hostile
// object name) has no escape in the format and would reach a terminal raw:
// it is written as the visible text \xNN (its backslash escaped), so the
// value stays inert and one line, as every human format writes such a name.
func EscapeLabelValue(s string) string {
	if strings.IndexFunc(s, isRawControl) < 0 {
		return labelEscaper.Replace(s)
	}
	var b strings.Builder
	for _, r := range s {
		if isRawControl(r) {
			fmt.Fprintf(&b, `\\x%02X`, r)
			continue
		}
		b.WriteString(labelEscaper.Replace(string(r)))
	}
	return b.String()
}

// isRawControl: a C0 or C1 control character or DEL, except the line feed
// (escaped by the format itself).
func isRawControl(r rune) bool {
	return r != '\n' && (r < 0x20 || (r >= 0x7f && r < 0xa0))
}

// EscapeHelp escapes HELP text (a `"` needs no escape there).
func EscapeHelp(s string) string { return helpEscaper.Replace(s) }

func formatPromValue(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
