// Package scenario bundles the demo scenarios behind --demo and `dorisdiag
// demo`: healthy, incident and legacy as readable JSON snapshots generated
// from the declarations in scenario/scenarios (embedded here), and scale,
// generated at call time. docs/scenarios.md tells the story of each;
// scenarios/EXPECTED.md and scenarios/<name>.expect.json list the planted
// problems (read by the tests through package fixtures). The scenarios name
// their nodes *.demo.invalid, which never resolve.
package scenario

import (
	"embed"
	"fmt"
	"sort"
	"strings"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

//go:embed scenarios/*.json
var files embed.FS

// Names lists the bundled scenarios, sorted.
func Names() []string {
	return []string{"healthy", "incident", "legacy", "scale"}
}

// Load returns a fresh deep copy of a bundled scenario's snapshot: it is
// decoded (or generated) anew on every call, so callers may mutate it.
func Load(name string) (*snapshot.Snapshot, error) {
	if name == "scale" {
		return Scale(DefaultScale), nil
	}
	if !known(name) {
		return nil, unknown(name)
	}
	data, err := files.ReadFile("scenarios/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	s, err := snapshot.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	return s, nil
}

func known(name string) bool {
	i := sort.SearchStrings(Names(), name)
	return i < len(Names()) && Names()[i] == name
}

func unknown(name string) error {
	return fmt.Errorf("unknown scenario %q (valid: %s)", name, strings.Join(Names(), ", "))
}
