// Package snapshot is `dorisdiag snapshot`: save what a source reads to a
// file, or `--summary` of what a snapshot holds and could not read.
package snapshot
