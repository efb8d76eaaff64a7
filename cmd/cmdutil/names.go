package cmdutil

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/shellquote"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Names a person can type (docs/cli.md "Object names"): `mv explain` and
// `streams show` take DB.NAME or a bare NAME, each part bare or in
// backquotes (`s.h.o.p`.`mv.x`, a backquote inside written twice:
// doris.ParseName). A bare NAME that one database holds resolves to it; one
// that several hold lists them; no name lists the candidates; a wrong name
// lists the nearest. Every name this file prints is written by
// doris.FormatName and shell-quoted, so it can be pasted back.

// Object kinds of objectNames.
const (
	KindMV     = "mv"
	KindStream = "stream"
)

// objectRef is one object a name can resolve to.
type ObjectRef struct{ DB, Name string }

func (o ObjectRef) String() string { return doris.FormatName(o.DB, o.Name) }

// objectNames lists the names of the objects of kind ("mv": IVM
// materialized views, "stream": streams, user and internal) in the series,
// each written as the name argument accepts it (doris.FormatName), sorted.
// Shell completion uses it (it does not shell-quote: the shell's completion
// does).
func ObjectNames(series []*snapshot.Snapshot, kind string) []string {
	refs := ObjectRefs(series, kind)
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.String()
	}
	return out
}

func ObjectRefs(series []*snapshot.Snapshot, kind string) []ObjectRef {
	var refs []ObjectRef
	switch kind {
	case KindMV:
		for _, m := range AnalyzeMVs(series, mv.Options{}).MVs {
			refs = append(refs, ObjectRef{m.DB, m.Name})
		}
	case KindStream:
		for _, s := range streams.Analyze(series, streams.Options{}).Streams {
			refs = append(refs, ObjectRef{s.DB, s.Name})
		}
	}
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].DB != refs[j].DB {
			return refs[i].DB < refs[j].DB
		}
		return refs[i].Name < refs[j].Name
	})
	return refs
}

// nameUsage names what a command's name argument is, for its messages.
type NameUsage struct {
	Cmd   string // "mv explain"
	What  string // "an IVM materialized view"
	Shape string // "DB.MV"
}

// Resolve turns the argument (or its absence: arg nil) into one of refs, or
// a usage error that lists what the user can type instead.
func (u NameUsage) Resolve(arg *string, refs []ObjectRef) (ObjectRef, error) {
	if arg == nil {
		if len(refs) == 0 {
			return ObjectRef{}, UsageErrorf("%s needs the name of %s (%s); the snapshot has none", u.Cmd, u.What, u.Shape)
		}
		return ObjectRef{}, UsageErrorf("%s needs the name of %s (%s); %d in the snapshot: %s", u.Cmd, u.What, u.Shape, len(refs), listNames(refs, 10))
	}
	n, err := doris.ParseName(*arg)
	if err != nil {
		return ObjectRef{}, UsageErrorf("%s: %v", u.Cmd, err)
	}
	if n.Qualified {
		for _, r := range refs {
			if r.DB == n.DB && r.Name == n.Name {
				return r, nil
			}
		}
		// A database name differing in case only: Doris database names are
		// case-insensitive unless lower_case_table_names says otherwise, and
		// ByName has always matched them so.
		var fold []ObjectRef
		for _, r := range refs {
			if strings.EqualFold(r.DB, n.DB) && r.Name == n.Name {
				fold = append(fold, r)
			}
		}
		if len(fold) == 1 {
			return fold[0], nil
		}
	} else {
		var m []ObjectRef
		for _, r := range refs {
			if r.Name == n.Name {
				m = append(m, r)
			}
		}
		switch len(m) {
		case 1:
			return m[0], nil
		case 0:
		default:
			return ObjectRef{}, UsageErrorf("%s %q: %d databases have %s by that name; give the database: %s", u.Cmd, *arg, len(m), u.What, listNames(m, 10))
		}
	}
	if len(refs) == 0 {
		return ObjectRef{}, UsageErrorf("%s: no %s %q (the snapshot has none)", u.Cmd, strings.SplitN(u.What, " ", 2)[1], *arg)
	}
	return ObjectRef{}, UsageErrorf("%s: no %s %q (%d in the snapshot; nearest: %s)", u.Cmd, strings.SplitN(u.What, " ", 2)[1], *arg, len(refs), listNames(nearestRefs(n, refs, 5), 5))
}

// listNames writes up to max names, each pasteable (FormatName, then shell
// quoting), and how many more there are.
func listNames(refs []ObjectRef, max int) string {
	var q []string
	for i, r := range refs {
		if i == max {
			q = append(q, fmt.Sprintf("… and %d more", len(refs)-max))
			break
		}
		q = append(q, shellquote.Quote(r.String()))
	}
	return strings.Join(q, ", ")
}

// nearestRefs ranks refs by edit distance to what was typed: against the
// whole DB.NAME when a database was given, else against the name alone.
func nearestRefs(n doris.ObjectName, refs []ObjectRef, max int) []ObjectRef {
	type cand struct {
		r ObjectRef
		d int
	}
	cs := make([]cand, len(refs))
	for i, r := range refs {
		d := Levenshtein(strings.ToLower(n.Name), strings.ToLower(r.Name))
		if n.Qualified {
			d += Levenshtein(strings.ToLower(n.DB), strings.ToLower(r.DB))
		}
		cs[i] = cand{r, d}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []ObjectRef
	for i := 0; i < len(cs) && i < max; i++ {
		out = append(out, cs[i].r)
	}
	return out
}

// oneNameArg accepts zero or one name argument (zero lists the candidates,
// once the source is read); more is a usage error that says why.
func OneNameArg(shape string) func(c *cobra.Command, args []string) error {
	return func(c *cobra.Command, args []string) error {
		if len(args) > 1 {
			return UsageErrorf("%s takes one name (%s), got %d arguments: %s (quote a name that holds spaces)", strings.TrimPrefix(c.CommandPath(), "dorisdiag "), shape, len(args), shellquote.Join(args...))
		}
		return nil
	}
}

// analyzeMVs runs the stream analysis and the MV analysis over a series.
func AnalyzeMVs(series []*snapshot.Snapshot, opt mv.Options) *mv.Result {
	streams := streams.Analyze(series, streams.Options{})
	return mv.Analyze(series, streams, opt)
}
