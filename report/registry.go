package report

import (
	"bytes"
	"fmt"
	"io"
)

// Doc is a typed document a command hands to report: the result of one
// command, already computed by diag. Kind is the JSON "kind" field and the
// key under which its renderers are registered.
type Doc interface{ Kind() string }

// Renderer writes d in one format. It is registered for one kind, so it may
// assert d to that kind's concrete type.
type Renderer func(w io.Writer, st Style, d Doc) error

var (
	renderers = map[string]map[Format]Renderer{}
	noJSON    = map[string]bool{}
)

// Register adds the renderer of kind in format f. It is called once per
// kind and format, from an init function of the file that renders that
// format; a second registration is a programming error and panics at start.
// JSON needs no registration: every kind gets the generic JSON renderer
// unless it registers its own or calls NoJSON.
func Register(kind string, f Format, r Renderer) {
	if r == nil {
		panic(fmt.Sprintf("report.Register(%q, %q): nil renderer", kind, f))
	}
	m := renderers[kind]
	if m == nil {
		m = map[Format]Renderer{}
		renderers[kind] = m
	}
	if _, dup := m[f]; dup {
		panic(fmt.Sprintf("report.Register(%q, %q): registered twice", kind, f))
	}
	m[f] = r
}

// NoJSON withdraws the generic JSON renderer from kind: for a document that
// is a guided tour of others (demo), not data.
func NoJSON(kind string) { noJSON[kind] = true }

// Formats lists the formats kind can be written in, in a fixed order (table,
// wide, json, markdown, prom). JSON is always there unless NoJSON(kind).
func Formats(kind string) []Format {
	m := renderers[kind]
	var out []Format
	for _, f := range AllFormats() {
		if _, ok := m[f]; ok || (f == FormatJSON && !noJSON[kind]) {
			out = append(out, f)
		}
	}
	return out
}

// Emit writes d in format f, or says that d's kind has no such format.
//
// The table format fits st's width; wide and markdown have no width limit.
// Every human format (table, wide, markdown) goes through terminalSafe
// (text.go): control, escape and bidi characters from the cluster are
// escaped and colour markers become SGR sequences. JSON and prom are written
// as rendered.
func Emit(w io.Writer, st Style, f Format, d Doc) error {
	kind := d.Kind()
	if r, ok := renderers[kind][f]; ok {
		if f != FormatTable {
			st = st.WithWidth(0)
		}
		st.wideHint = "-o wide"
		if _, ok := renderers[kind][FormatWide]; !ok {
			st.wideHint = "-o json"
		}
		if !f.Human() {
			return r(w, st, d)
		}
		var buf bytes.Buffer
		if err := r(&buf, st, d); err != nil {
			// What was rendered before the error is still shown, made safe.
			_, _ = io.WriteString(w, terminalSafe(buf.String(), st.Color()))
			return err
		}
		_, err := io.WriteString(w, terminalSafe(buf.String(), st.Color()))
		return err
	}
	if f == FormatJSON && !noJSON[kind] {
		return JSON(w, kind, d)
	}
	_, err := ParseFormat(string(f), Formats(kind)...)
	if err == nil {
		err = fmt.Errorf("no %s renderer for %s", f, kind)
	}
	return err
}
