package cmd

import (
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
)

// TestHostileArgumentsAreUsageErrors: arguments that used to print nonsense
// as if real, or silently judge nothing, exit 2 with one clear line.
func TestHostileArgumentsAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		// --at before the cluster time printed "(+-21152d10h)".
		{[]string{"headroom", "--demo", "--at", "1969-01-01T00:00:00Z"}, "is before the cluster time"},
		// --at past the last TSO (year 3084) silently judged 0 partitions.
		{[]string{"headroom", "--demo", "--at", "9999-01-01T00:00:00Z"}, "too far after the cluster time"},
		// ttl*1000 overflowed: "(-1s)", and 0 partitions judged.
		{[]string{"headroom", "--demo", "--ttl", "9223372036854775807"}, "--ttl"},
		// A negative --watch silently ran once.
		{[]string{"check", "--demo", "--watch=-1s"}, "--watch -1s"},
	} {
		stdout, stderr, code := run(t, nil, "", tc.args...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != cmdutil.ExitError || stdout != "" || !strings.HasPrefix(first, "dorisdiag: ") || !strings.Contains(first, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line mentioning %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}
