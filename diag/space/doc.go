// Package space is S5 (apache/doris#69907 §1 S5): how much changelog the
// base tables keep (SHOW DATA) and whether the BEs' TTL cleanup works (their
// /metrics, analysed by package metrics).
package space
