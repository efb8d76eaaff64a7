// Package tso renders the documents of `dorisdiag tso` (kinds "tso_decode",
// "tso_encode", "tso_diff", "tso_lag", "tso_headroom"). Its renderers
// register with report from an init.
package tso
