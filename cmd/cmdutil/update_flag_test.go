package cmdutil

import "flag"

// This package has no golden files; the flag is defined so that
// `go test ./... -update` works across the module.
var _ = flag.Bool("update", false, "rewrite golden files (none in this package)")
