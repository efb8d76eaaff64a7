package streams

import (
	"reflect"
	"runtime"
	"testing"
)

// Each check is listed once: a check listed twice would report its finding
// twice, and a nil entry would panic on the first stream or MV.
func TestCheckListsListEachCheckOnce(t *testing.T) {
	lists := map[string][]any{}
	for _, c := range streamStateChecks {
		lists["streams"] = append(lists["streams"], c)
	}
	for _, c := range streamReadChecks {
		lists["streams"] = append(lists["streams"], c)
	}
	for name, checks := range lists {
		seen := map[uintptr]bool{}
		for i, c := range checks {
			v := reflect.ValueOf(c)
			if v.IsNil() {
				t.Errorf("%s check #%d is nil", name, i)
				continue
			}
			if seen[v.Pointer()] {
				t.Errorf("%s: %s listed twice", name, runtime.FuncForPC(v.Pointer()).Name())
			}
			seen[v.Pointer()] = true
		}
	}
}

// A disabled or stale stream gets only the state checks: nothing reads it,
// so resume, headroom and pending-age hazards would be noise.
func TestStreamReadChecksSkipUnreadStreams(t *testing.T) {
	sr := &Stream{DB: "d", Name: "s", Kind: KindUser, State: StateDisabled, Enabled: false,
		Partitions: []Partition{{Unit: "p", CanResume: new(bool)}}}
	fs := (&streamAnalyzer{}).streamFindings(sr)
	if len(fs) != 1 || fs[0].Code != CodeDisabled {
		t.Errorf("disabled stream: %+v", fs)
	}
	sr.State = StateCannotResume
	fs = (&streamAnalyzer{}).streamFindings(sr)
	if len(fs) != 2 || fs[1].Code != CodeCannotResumeRejected {
		t.Errorf("read stream: %+v", fs)
	}
}
