package exposition

import (
	"bytes"
	"fmt"
	"io"
)

// lineReader hands out the payload line by line from one reused buffer,
// with look-ahead for the lines that follow (to rejoin a sample a raw line
// feed split). Offsets are relative to the start of the current line; a slice
// returned by Bytes is valid until the next call to LineAt or Advance.
type lineReader struct {
	r     io.Reader
	buf   []byte
	start int // offset of the current line in buf
	end   int // end of valid data in buf
	eof   bool
	err   error
	total int64
	limit int64 // 0: none
	max   int   // the buffer grows to this size while the stream is long
	// maxLine caps a line (0: none): lineAt stops scanning after maxLine
	// bytes without a line feed and sets long, so the buffer never holds
	// more than maxLine bytes of one line.
	maxLine int
	long    bool
}

// newLineReader reads r with a buffer growing to size bytes, failing past
// limit bytes (0: no limit).
func newLineReader(r io.Reader, size int, limit int64) *lineReader {
	if size < 4096 {
		size = 4096
	}
	// Start small (a short payload should not cost a megabyte) and grow to
	// size once the stream proves long.
	first := min(size, 32<<10)
	return &lineReader{r: r, buf: make([]byte, first), limit: limit, max: size}
}

// fill reads more data, compacting or growing the buffer when it is full.
func (lr *lineReader) fill() {
	if lr.eof {
		return
	}
	if lr.start > 0 {
		n := copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.end = n
		lr.start = 0
	}
	if lr.end == len(lr.buf) || (len(lr.buf) < lr.max && lr.total >= int64(4*len(lr.buf))) {
		nb := make([]byte, 2*len(lr.buf))
		copy(nb, lr.buf[:lr.end])
		lr.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := lr.r.Read(lr.buf[lr.end:])
		lr.end += n
		lr.total += int64(n)
		if lr.limit > 0 && lr.total > lr.limit {
			lr.err = fmt.Errorf("payload exceeds the limit of %d bytes", lr.limit)
			lr.eof = true
			return
		}
		if err == io.EOF {
			lr.eof = true
			return
		}
		if err != nil {
			lr.err = fmt.Errorf("reading payload: %w", err)
			lr.eof = true
			return
		}
		if n > 0 {
			return
		}
	}
	lr.err = fmt.Errorf("reading payload: %w", io.ErrNoProgress)
	lr.eof = true
}

// LineAt returns the line that starts rel bytes after the current line:
// [s, e) relative offsets, whether a line feed ends it, and false when there
// is no line there (end of input).
//
// long reports a line of more than maxLine bytes: then [s, e) is its first
// maxLine bytes and hasLF is false.
func (lr *lineReader) LineAt(rel int) (s, e int, hasLF, ok bool) {
	lr.long = false
	scanned := 0
	for {
		abs := lr.start + rel
		if i := bytes.IndexByte(lr.buf[abs+scanned:lr.end], '\n'); i >= 0 {
			if lr.maxLine > 0 && scanned+i > lr.maxLine {
				lr.long = true
				return rel, rel + lr.maxLine, false, true
			}
			return rel, rel + scanned + i, true, true
		}
		scanned = lr.end - abs
		if lr.maxLine > 0 && scanned > lr.maxLine {
			lr.long = true
			return rel, rel + lr.maxLine, false, true
		}
		if lr.eof {
			if scanned == 0 {
				return 0, 0, false, false
			}
			return rel, rel + scanned, false, true
		}
		lr.fill()
	}
}

// SetMaxLine caps a line at n bytes (0: none); see LineAt.
func (lr *lineReader) SetMaxLine(n int) { lr.maxLine = n }

// Long reports whether the line LineAt returned last was cut at the cap.
func (lr *lineReader) Long() bool { return lr.long }

// Total is how many bytes were read from the payload.
func (lr *lineReader) Total() int64 { return lr.total }

// Consumed is the payload offset of the current line.
func (lr *lineReader) Consumed() int64 { return lr.total - int64(lr.end-lr.start) }

// Err is the read error or the exceeded limit that ended the payload, or nil.
func (lr *lineReader) Err() error { return lr.err }

// Bytes is the slice [s, e) relative to the current line.
func (lr *lineReader) Bytes(s, e int) []byte { return lr.buf[lr.start+s : lr.start+e] }

// Advance moves the current line rel bytes on.
func (lr *lineReader) Advance(rel int) { lr.start += rel }

// SkipLine discards the current line and its line feed, copying it to w
// when w is not nil, in buffer-sized pieces: a line longer than the buffer
// is never held whole.
func (lr *lineReader) SkipLine(w io.Writer) error {
	var werr error
	for {
		chunk := lr.buf[lr.start:lr.end]
		i := bytes.IndexByte(chunk, '\n')
		if i >= 0 {
			chunk = chunk[:i+1]
		}
		if w != nil && werr == nil {
			_, werr = w.Write(chunk)
		}
		lr.start += len(chunk)
		if i >= 0 {
			return werr
		}
		if lr.eof {
			if w != nil && werr == nil {
				// the payload ended without a line feed: end the copy with one
				_, werr = w.Write([]byte{'\n'})
			}
			return werr
		}
		lr.fill()
	}
}
