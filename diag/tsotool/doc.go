// Package tsotool holds the `dorisdiag tso` tools: decode, lag, diff, and
// headroom with its two codes. The TSO arithmetic is package tso's (Doris'
// own, cited there); what is decided here is the verdict and its findings.
package tsotool
