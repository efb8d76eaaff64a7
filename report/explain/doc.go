// Package explain renders `dorisdiag explain` (kind "explain"): a finding
// code's declaration as text. Its renderers register with report from an
// init.
package explain
