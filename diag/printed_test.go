package diag

import (
	"reflect"
	"testing"
)

// TestSplitNext (issue 14 Why 9): a line break inside a quoted name does not
// end the statement; one outside quotes does.
func TestSplitNext(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"SELECT 1;\nSELECT 2;", []string{"SELECT 1;", "SELECT 2;"}},
		{"REFRESH MATERIALIZED VIEW `d`.`a\nb` COMPLETE;\nSELECT 2;", []string{"REFRESH MATERIALIZED VIEW `d`.`a\nb` COMPLETE;", "SELECT 2;"}},
		{"SELECT * FROM t WHERE n = 'it\\'s\na';\nSELECT 2;", []string{"SELECT * FROM t WHERE n = 'it\\'s\na';", "SELECT 2;"}},
		{"SELECT 1;  -- a `comment\nSELECT 2;", []string{"SELECT 1;  -- a `comment", "SELECT 2;"}},
		{"dorisdiag mv explain 'd.a\nb'\nREFRESH MATERIALIZED VIEW `d`.`a\nb` COMPLETE;", []string{"dorisdiag mv explain 'd.a\nb'", "REFRESH MATERIALIZED VIEW `d`.`a\nb` COMPLETE;"}},
		{"dorisdiag mv explain 'it'\\''s\nx'\nSELECT 2;", []string{"dorisdiag mv explain 'it'\\''s\nx'", "SELECT 2;"}},
		{"dorisdiag snapshot --summary  # it's\nSELECT 2;", []string{"dorisdiag snapshot --summary  # it's", "SELECT 2;"}},
		// prose with an apostrophe that never closes: line by line
		{"Don't read it yet\nthen check", []string{"Don't read it yet", "then check"}},
	} {
		if got := SplitNext(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitNext(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
