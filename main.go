// Command dorisdiag diagnoses the consumers of an Apache Doris table changelog:
// table streams and incrementally maintained materialized views.
package main

import "github.com/dorisdiag/dorisdiag/cmd"

func main() { cmd.Execute() }
