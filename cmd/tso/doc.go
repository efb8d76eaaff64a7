// Package tso is the `dorisdiag tso` group: decode, encode, diff, lag and
// headroom of TSO values, offline (no file or socket).
package tso
