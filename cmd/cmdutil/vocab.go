package cmdutil

// names lists the values of one of diag's typed vocabularies (states,
// reasons) as flags and completions spell them.
func Names[S ~string](xs []S) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}
