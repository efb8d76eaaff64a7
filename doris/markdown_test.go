package doris

import (
	"fmt"
	"strings"
)

// Markdown renders the contract as the "Doris sources" part of
// docs/snapshot.md (kept in step by a test: go test ./doris -update).
func Markdown() string {
	var b strings.Builder
	b.WriteString("Generated from the wire contract (`doris/`); do not edit by hand: `go test ./doris -update`.\n\n")
	b.WriteString("Builds: **all** = in the Doris source named under *Mirrors*; **some builds** = present in some versions only;\n")
	b.WriteString("**older builds** = replaced since; **apache/doris#69907** = the monitoring design, in no released build yet\n")
	b.WriteString("(read when the capability probe finds it). *Read* marks the columns dorisdiag selects; the others are listed\n")
	b.WriteString("so the emulator serves the whole relation.\n\n")
	b.WriteString("| source | kind | statements |\n|---|---|---|\n")
	for _, r := range All() {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %d |\n", r.Source, anchor(r.Source), r.Kind, len(r.Statements))
	}
	for _, r := range All() {
		fmt.Fprintf(&b, "\n### %s\n\n", r.Source)
		fmt.Fprintf(&b, "*%s*", r.Kind)
		if r.Avail != "" && r.Avail != AllBuilds {
			fmt.Fprintf(&b, ", builds: %s", r.Avail)
		}
		fmt.Fprintf(&b, ". Mirrors: %s.", r.Mirrors)
		if r.Note != "" {
			fmt.Fprintf(&b, " %s.", strings.TrimSuffix(r.Note, "."))
		}
		b.WriteString("\n\n")
		for _, st := range r.Statements {
			fmt.Fprintf(&b, "* `%s` — %s\n", st.Template, st.When)
		}
		if len(r.Columns()) == 0 {
			continue
		}
		b.WriteString("\n| column | type | builds | read | no value | format | note |\n|---|---|---|---|---|---|---|\n")
		for _, c := range r.Columns() {
			read := ""
			if c.Read {
				read = "yes"
			}
			var sent []string
			for _, s := range c.Sentinels {
				sent = append(sent, "`"+s+"`")
			}
			n := c.Note
			if c.Constant != "" {
				n = strings.TrimSpace("always `" + c.Constant + "`. " + n)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s |\n", c.Name, c.Type, c.Avail, read,
				strings.Join(sent, " "), cell(string(c.Format)), cell(n))
		}
	}
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func anchor(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}
