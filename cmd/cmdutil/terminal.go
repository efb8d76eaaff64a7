package cmdutil

import (
	"os"

	"golang.org/x/term"
)

// Terminal width (docs/cli.md "Output"): the table format fits it.
//
//   - COLUMNS, when it is a positive number, wins (on a terminal or a pipe:
//     `COLUMNS=80 dorisdiag check | less` gets the 80-column view);
//   - else on a terminal, its width (TIOCGWINSZ through golang.org/x/term);
//   - else (a pipe, a file, cron) no limit: every value in full, as gh and
//     kubectl print to a pipe, so nothing a script greps for is cut.

// terminalSize is the width and height of the terminal f is, 0 when unknown.
func terminalSize(f *os.File) (int, int) {
	w, h, err := term.GetSize(int(f.Fd()))
	if err != nil || w <= 0 {
		return 0, 0
	}
	return w, h
}
