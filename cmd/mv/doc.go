// Package mv is the `dorisdiag mv` group: its threshold flags, `mv list`
// and `mv explain`.
package mv
