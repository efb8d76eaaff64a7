package cmdutil

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/report"
)

// The pager (docs/cli.md "Output"): on a terminal, human output longer
// than the screen goes through $PAGER, default `less -FRX` (quit at once if
// it fits, keep colour, leave the text on the screen), as git and gh do.
// Never with --no-pager, PAGER=cat, a pipe or a file (stdout not a
// terminal), -o json or -o prom, --watch (it redraws), or -f FILE.

const defaultPager = "less -FRX"

// addPagerFlag adds --no-pager to root (one line in NewRootCmd).
func AddPagerFlag(root *cobra.Command, cfg *Config) {
	root.PersistentFlags().BoolVar(&cfg.NoPager, "no-pager", false, "never send output through $PAGER (default less -FRX); a pipe or a file never uses it")
}

// pagerCommand is the pager to run, "" for none.
func (c Common) pagerCommand() string {
	p := strings.TrimSpace(c.IO.getenv("PAGER"))
	if p == "" {
		p = defaultPager
	}
	if p == "cat" {
		return ""
	}
	return p
}

// pagerWanted: format f written to w goes to a terminal the pager may own
// (one whose size is known: "longer than the screen" needs its height). w
// must be the process's stdout: the pager never replaces a buffer a --watch
// round (wr) or -f FILE is captured in.
func (c Common) pagerWanted(w io.Writer, wr *report.WatchRound, f report.Format) bool {
	if c.Config.NoPager || !c.IO.IsTTY || c.IO.TermSize == nil || wr != nil || w != c.IO.Out {
		return false
	}
	if !f.Human() {
		return false
	}
	return c.pagerCommand() != ""
}

// emitPaged renders d, then shows it through the pager when it is longer
// than the screen (shorter output is written straight away: nothing to
// page, and no process to start). A pager that cannot start is no error:
// the output is written as it is.
func (c Common) emitPaged(f report.Format, d report.Doc) error {
	var buf bytes.Buffer
	err := report.Emit(&buf, c.style(c.IO.Out), f, d)
	if err != nil && buf.Len() == 0 {
		return err
	}
	_, height := c.IO.TermSize()
	if height > 0 && bytes.Count(buf.Bytes(), []byte("\n")) < height {
		_, werr := c.IO.Out.Write(buf.Bytes())
		if err == nil {
			err = werr
		}
		return err
	}
	run := c.IO.RunPager
	if run == nil {
		run = runPager
	}
	if perr := run(c.pagerCommand(), buf.Bytes()); perr != nil {
		if _, werr := c.IO.Out.Write(buf.Bytes()); err == nil {
			err = werr
		}
	}
	return err
}

// runPager runs command through sh with text on its stdin and the
// process's terminal as its stdout.
func runPager(command string, text []byte) error {
	c := exec.Command("sh", "-c", command)
	c.Stdin = bytes.NewReader(text)
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	return c.Run()
}
