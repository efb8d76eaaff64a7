package exposition

import "io"

// Rewriter is told of every line as the engine reads it, so that a client
// above the engine (exposition/fix) can copy the payload or write a line
// another way. The engine still decides what each line is and carries the
// state from line to line; a Rewriter only chooses the bytes written.
type Rewriter interface {
	// Clean is a line that parsed, and whether a line feed ended it.
	Clean(line []byte, hasLF bool)
	// Failed is a record that did not parse (a line, with the lines a raw
	// line feed split off it): the Rewriter books it, through rec.Replace
	// or rec.Keep, before it returns.
	Failed(rec *Record)
	// Skipped is a line over Options.MaxLineBytes, reported as p and not
	// parsed; its bytes (and a line feed) are copied to the writer returned,
	// which keeps its own write error (nil: not copied).
	Skipped(p Problem) io.Writer
}

// Rewrite reads the payload as Lint does, telling rw of every line, and
// returns the number of lines and bytes read. Problems reach rw with the
// records; the per-family rules of Lint's Result are not run. The error is
// only for I/O failures and the size limit.
func Rewrite(r io.Reader, opts Options, rw Rewriter) (lines int, bytes int64, err error) {
	e := newEngine(opts)
	e.rw = rw
	err = e.run(r, nil)
	return e.lines, e.bytes, err
}

// Record is a record that failed, as a Rewriter sees it. Its slices are the
// engine's: valid until Replace or Keep.
type Record struct {
	e            *engine
	st0          savedState
	st           status
	orig         []byte
	origLF       bool
	line, nlines int
}

// Span is a label value or HELP text of a record, as offsets into its bytes
// (between the quotes for a label value); Label is the value's label name.
type Span struct {
	Start, End int
	Help       bool
	Label      []byte
}

// Bytes is the record as the payload holds it, without its final line feed.
func (r *Record) Bytes() []byte { return r.orig }

// HasLF reports whether a line feed ended the record.
func (r *Record) HasLF() bool { return r.origLF }

// Line is the payload line the record starts on; Lines how many it spans.
func (r *Record) Line() int  { return r.line }
func (r *Record) Lines() int { return r.nlines }

// Problems are the record's problems, as the lenient reading found them.
func (r *Record) Problems() []Problem { return r.e.pend }

// Spans are the record's label values and HELP texts; none when a label
// value runs open to the end of the record.
func (r *Record) Spans() []Span {
	if r.st == stOpenValue {
		return nil
	}
	return r.e.spans
}

// Replace parses b as one line, from the state before the record: when it
// parses, it is booked in the record's place and Replace reports true;
// otherwise nothing is booked and the Rewriter calls Keep.
func (r *Record) Replace(b []byte) bool {
	e := r.e
	e.restore(r.st0)
	e.noMutate = false
	e.strict = true
	e.setRecord(b, true, r.line, 1)
	if e.parseRecord() == stOK && !e.failed {
		e.commit()
		return true
	}
	return false
}

// Keep books the record as the payload holds it, with its problems.
func (r *Record) Keep() {
	e := r.e
	e.restore(r.st0)
	e.noMutate = false
	e.strict = false
	e.setRecord(r.orig, r.origLF, r.line, r.nlines)
	e.collectSpans = false
	if e.parseRecord() == stOK {
		e.commit()
	} else {
		e.flushPending()
	}
}
