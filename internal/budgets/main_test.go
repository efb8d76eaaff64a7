package budgets

import (
	"os"
	"testing"

	"github.com/dorisdiag/dorisdiag/internal/testbin"
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m)) }

// dorisdiagBinary is the real dorisdiag (a test binary links the emulator,
// which alone costs about 50 MB of RSS), built once per test run and shared
// (testbin).
func dorisdiagBinary(t testing.TB) string { return testbin.Dorisdiag(t) }
