package mv

import (
	"fmt"
	"testing"

	"github.com/dorisdiag/dorisdiag/fixtures/corpus"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/diag/streams"
)

func TestZZProbe(t *testing.T) {
	for _, n := range []string{"binlog-broken-fallback", "task-errors-5100-5101", "mv-schema-change", "mv-infos-docs-normal", "task-errors-5100-5101", "excluded-trigger-bare-name", "expired-offset-error"} {
		s, err := corpus.Snapshot(n)
		if err != nil {
			t.Fatal(err)
		}
		if n == "binlog-broken-fallback" || n == "task-errors-5100-5101" {
			s.MVs = append(s.MVs, *mvOrders("BUILD DEFERRED REFRESH INCREMENTAL ON MANUAL"))
			s.Normalize()
		}
		ss := []*snapshot.Snapshot{s}
		r := Analyze(ss, streams.Analyze(ss, streams.Options{}), Options{})
		fmt.Println("==", n)
		for _, m := range r.MVs {
			fmt.Println("  mv", m.Name, m.FreshnessState, m.LaggingReason)
		}
		for _, f := range r.Findings {
			fmt.Printf("  %s %s %s | %s | %v | next: %s\n", f.Severity, f.Code, f.Summary, f.Detail, f.Evidence, f.Next)
		}
	}
}
