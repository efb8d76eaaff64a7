package report

import (
	"bytes"
	"fmt"
	"io"
)

// safeWriter passes what a human renderer writes through terminalSafe, a
// block of whole lines at a time: no colour marker, UTF-8 sequence or escape
// spans a line break, so the lines come out exactly as terminalSafe of the
// whole text would give them. The first write error is kept and returned by
// flush; nothing more is written after it.
type safeWriter struct {
	w     io.Writer
	color bool
	buf   []byte
	err   error
}

// safeChunk is how much text safeWriter gathers before it writes the whole
// lines it holds.
const safeChunk = 64 << 10

func (s *safeWriter) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	if len(s.buf) >= safeChunk {
		if i := bytes.LastIndexByte(s.buf, '\n'); i >= 0 {
			s.emit(s.buf[:i+1])
			s.buf = append(s.buf[:0], s.buf[i+1:]...)
		}
	}
	return len(p), nil
}

func (s *safeWriter) emit(b []byte) {
	if s.err == nil && len(b) > 0 {
		_, s.err = io.WriteString(s.w, terminalSafe(string(b), s.color))
	}
}

// flush writes what is left and returns the first write error.
func (s *safeWriter) flush() error {
	s.emit(s.buf)
	s.buf = s.buf[:0]
	return s.err
}

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
		// Made safe as it is rendered, a block of whole lines at a time:
		// a report of 400,000 streams is hundreds of megabytes of text,
		// never held whole (docs/performance.md "Bounded snapshots").
		sw := &safeWriter{w: w, color: st.Color()}
		err := r(sw, st, d)
		// What was rendered before an error is still shown, made safe.
		if ferr := sw.flush(); err == nil {
			err = ferr
		}
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
