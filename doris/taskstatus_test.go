package doris

import "testing"

// One normalising parse: the doctor compared Status case-sensitively while
// refresh upper-cased and trimmed it first.
func TestParseTaskStatus(t *testing.T) {
	for in, want := range map[string]struct {
		s             TaskStatus
		finished, due bool
	}{
		"SUCCESS":     {TaskSuccess, true, false},
		" failed ":    {TaskFailed, true, false},
		"Canceled":    {TaskCanceled, true, false},
		"CANCELLED":   {TaskCancelled, true, false},
		"running":     {TaskRunning, false, true},
		"\tPENDING\n": {TaskPending, false, true},
		"":            {"", false, false},
		"PAUSED":      {"PAUSED", false, false},
	} {
		s := ParseTaskStatus(in)
		if s != want.s || s.Finished() != want.finished || s.Due() != want.due {
			t.Errorf("ParseTaskStatus(%q) = %q finished %v due %v, want %+v", in, s, s.Finished(), s.Due(), want)
		}
	}
}
