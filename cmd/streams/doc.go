// Package streams is `dorisdiag streams` and `streams show`.
package streams
