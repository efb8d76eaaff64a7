package metrics

import "testing"

func TestSpaceSignals(t *testing.T) {
	res := lintText(t, "# TYPE doris_fe_changelog_retained_bytes gauge\ndoris_fe_changelog_retained_bytes{scope=\"single_replica\"} 100\n# TYPE doris_be_changelog_ttl_cleanup_total counter\ndoris_be_changelog_ttl_cleanup_total{result=\"failed\"} 2\n")
	s := SpaceSignals(res)
	if s.RetainedBytesSingleReplica == nil || *s.RetainedBytesSingleReplica != 100 || s.TTLCleanupFailed == nil || *s.TTLCleanupFailed != 2 || s.Empty() {
		t.Fatalf("%+v", s)
	}
	if !(S5{}).Empty() {
		t.Error("the zero S5 is not empty")
	}
}
