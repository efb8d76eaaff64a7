package cmd

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

type pagerOptions struct {
	NoPager bool
	// stdout is the process's stdout: the pager only ever replaces it, never
	// a buffer a --watch round or -f FILE is captured in.
	stdout io.Writer
}

// addPagerFlag adds --no-pager to root (one line in NewRootCmd).
func addPagerFlag(root *cobra.Command, g *globalOptions) {
	g.pager.stdout = g.ios.Out
	root.PersistentFlags().BoolVar(&g.pager.NoPager, "no-pager", false, "never send output through $PAGER (default less -FRX); a pipe or a file never uses it")
}

// pagerCommand is the pager to run, "" for none.
func (g *globalOptions) pagerCommand() string {
	p := ""
	if g.ios.Getenv != nil {
		p = strings.TrimSpace(g.ios.Getenv("PAGER"))
	}
	if p == "" {
		p = defaultPager
	}
	if p == "cat" {
		return ""
	}
	return p
}

// pagerWanted: format f goes to a terminal the pager may own (one whose
// size is known: "longer than the screen" needs its height).
func (g *globalOptions) pagerWanted(f report.Format) bool {
	if g.pager.NoPager || !g.ios.IsTTY || g.ios.TermSize == nil || g.watch != nil || g.ios.Out != g.pager.stdout {
		return false
	}
	if !f.Human() {
		return false
	}
	return g.pagerCommand() != ""
}

// emitPaged renders d, then shows it through the pager when it is longer
// than the screen (shorter output is written straight away: nothing to
// page, and no process to start). A pager that cannot start is no error:
// the output is written as it is.
func (g *globalOptions) emitPaged(f report.Format, d report.Doc) error {
	var buf bytes.Buffer
	err := report.Emit(&buf, g.style(), f, d)
	if err != nil && buf.Len() == 0 {
		return err
	}
	_, height := g.ios.TermSize()
	if height > 0 && bytes.Count(buf.Bytes(), []byte("\n")) < height {
		_, werr := g.ios.Out.Write(buf.Bytes())
		if err == nil {
			err = werr
		}
		return err
	}
	run := g.ios.RunPager
	if run == nil {
		run = runPager
	}
	if perr := run(g.pagerCommand(), buf.Bytes()); perr != nil {
		if _, werr := g.ios.Out.Write(buf.Bytes()); err == nil {
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
