package mv

import (
	"reflect"
	"runtime"
	"testing"
)

// Each MV check is listed once: a check listed twice would report its
// finding twice, and a nil entry would panic on the first MV.
func TestCheckListListsEachCheckOnce(t *testing.T) {
	seen := map[uintptr]bool{}
	for i, c := range mvChecks {
		v := reflect.ValueOf(c.run)
		if v.IsNil() {
			t.Errorf("check #%d is nil", i)
			continue
		}
		if seen[v.Pointer()] {
			t.Errorf("%s listed twice", runtime.FuncForPC(v.Pointer()).Name())
		}
		seen[v.Pointer()] = true
	}
}
