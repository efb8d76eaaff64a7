package check

import "flag"

// update rewrites the goldens of this package (testdata/findings).
var update = flag.Bool("update", false, "rewrite golden files")
