// Package screentest reads dorisdiag's human output as a terminal shows it,
// for the tests of cmd and internal/usertext that check what a reader sees
// (the first screen, a finding's block, its next step). Tests only: nothing
// outside a _test.go file imports it.
package screentest

import (
	"regexp"
	"strings"
)

// SGR matches one colour or style escape (Select Graphic Rendition).
var SGR = regexp.MustCompile("\x1b\\[[0-9;]*m")

// Lines is the output as a terminal shows it: colour removed, one string
// per line, without the final line feed.
func Lines(s string) []string {
	return strings.Split(strings.TrimRight(SGR.ReplaceAllString(s, ""), "\n"), "\n")
}

// FindingBlocks splits the findings part of a fitted view into one block of
// lines per top-level finding (heading first); symptoms ("↳") are their own
// one-line blocks.
func FindingBlocks(lines []string) [][]string {
	var blocks [][]string
	in := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "CRITICAL ") || strings.HasPrefix(l, "WARNING ") || strings.HasPrefix(l, "INFO "):
			blocks = append(blocks, []string{l})
			in = true
		case strings.HasPrefix(l, "  ↳ "):
			blocks = append(blocks, []string{l})
			in = false
		case in && strings.HasPrefix(l, "         "):
			blocks[len(blocks)-1] = append(blocks[len(blocks)-1], l)
		default:
			in = false
		}
	}
	return blocks
}
