package snapshot

import (
	"errors"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/scenario"
)

// failWriter fails every write as a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) {
	return 0, errors.New("write /x: no space left on device")
}

// TestSnapshotWriteErrorSaysItOnce (issue 25): a full disk printed
// "writing snapshot: writing snapshot: …".
func TestSnapshotWriteErrorSaysItOnce(t *testing.T) {
	s, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	err = writeSnapshot(failWriter{}, "", s)
	if err == nil || strings.Count(err.Error(), "writing snapshot") != 1 {
		t.Errorf("%v", err)
	}
}
