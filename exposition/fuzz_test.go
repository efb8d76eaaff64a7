package exposition

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// expfmtVerdict parses data with expfmt as Prometheus would; panicked says
// expfmt itself crashed.
func expfmtVerdict(data []byte) (err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			err, panicked = fmt.Errorf("expfmt panic: %v", r), true
		}
	}()
	p := expfmt.NewTextParser(model.UTF8Validation)
	_, err = p.TextToMetricFamilies(bytes.NewReader(data))
	return err, false
}

var fuzzSeeds = []string{
	"a 1\n",
	"# HELP a help\n# TYPE a counter\na_total 1\n",
	"a{b=\"c\"} 1\n",
	"a{b=\"c\",} 1 123\n",
	"a{b=\"c\\\\d\"} 1\n",
	"a{b=\"c\\d\"} 1\n",
	"a{b=\"c\\td\"} 1\n",
	"a{b=\"x\"y\", c=\"z\"} 1\n",
	"a{b=\"x\ny\"} 1\n",
	"a{b=\"x\"} 1",
	"a 1 \n",
	"a 1 2 \n",
	"a NaN\na{x=\"1\"} +Inf\na{x=\"2\"} -Inf\n",
	"a 0x1p3\n",
	"a 1_000\n",
	"a 0x10\n",
	"# TYPE a summary\na{quantile=\"0.5\"} 1\na_sum {} 2\na_count 3\n",
	"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 2\n",
	"# TYPE h histogram\nh_bucket{le=\"1\"} -1.5\n",
	"# TYPE h histogram\nh_bucket{le=\"1\"} 1\n# TYPE g gauge\n{h_bucket} -1.5\n",
	"# TYPE s summary\n# TYPE g gauge\n{s,a=\"b\"} 1\n",
	"{\"name.with.dots\"} 1\n",
	"{\"name\",a=\"b\"} 1\n",
	"{a=\"b\",\"name\"} 1\n",
	"{} 1\n",
	"# HELP a\n# HELP a x\n# HELP a y\n",
	"# TYPE a gauge\n# TYPE a counter\n",
	"a 1\n# TYPE a gauge\n",
	"# TYPE a foo\n",
	"# TYPE a coun\\ter\n",
	"#HELP a x\n",
	"# random comment\n\n\t\n",
	"   ",
	"a{b=\"c\",b=\"d\"} 1\n",
	"a{__name__=\"x\"} 1\n",
	"a\t{b=\"c\"}\t1\t2\n",
	"a{b=\"\xff\"} 1\n",
	"# HELP a \xff\n",
	"a{b=\"c\"} 1\r\n",
	"a 1\na 1\n",
	"a 1\nb 1\na 2\n",
	"doris_fe_query_total{user=\"a\\b\"} 5\n",
	"doris_fe_query_total{user=\"a\\\"} 5\n",
	"# HELP x a\\qb\n",
	"a{b=\"c\" 1\n",
	"a{b=c} 1\n",
}

func FuzzLintAgreesWithExpfmt(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkLintAgrees)
}

// checkLintAgrees is the body of FuzzLintAgreesWithExpfmt, also run over the
// large fixture payloads by TestFixturesAgreeWithExpfmt (large seeds would
// eat the fuzzing budget in minimisation).
func checkLintAgrees(t *testing.T, data []byte) {
	{
		res, err := Lint(bytes.NewReader(data), Options{})
		if err != nil {
			t.Fatalf("Lint error: %v", err)
		}
		for _, p := range res.Problems {
			if p.Rule == RuleLineTooLong || p.Rule == RuleLabelLimit {
				return // a documented refusal: the line is not checked
			}
		}
		perr, panicked := expfmtVerdict(data)
		if panicked {
			if res.Parseable {
				t.Fatalf("expfmt panics (%v) but the linter finds no error", perr)
			}
			return
		}
		if perr == nil {
			if !res.Parseable {
				t.Fatalf("expfmt parses %q but the linter reports errors: %s", data, errorList(res))
			}
			return
		}
		if res.Parseable {
			t.Fatalf("expfmt rejects %q (%v) but the linter finds no error", data, perr)
		}
		var pe expfmt.ParseError
		if !errors.As(perr, &pe) {
			t.Fatalf("expfmt error is not a ParseError: %v", perr)
		}
		for _, p := range res.Problems {
			if p.Severity == SeverityError && p.Line == pe.Line {
				return
			}
		}
		t.Fatalf("expfmt rejects %q at line %d (%v); the linter's errors are elsewhere: %s", data, pe.Line, perr, errorList(res))
	}
}

// TestFixturesAgreeWithExpfmt runs FuzzLintAgreesWithExpfmt's body over
// the fixture payloads, which are too large to be fuzz seeds
// (TestFixturesFixParses runs FuzzFixParses's).
func TestFixturesAgreeWithExpfmt(t *testing.T) {
	files, _ := filepath.Glob("../fixtures/metrics/*.prom")
	if len(files) == 0 {
		t.Fatal("no fixtures/metrics/*.prom")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			checkLintAgrees(t, data)
		})
	}
}

func errorList(res *Result) string {
	var b strings.Builder
	for _, p := range res.Problems {
		if p.Severity == SeverityError {
			fmt.Fprintf(&b, "\n  %d:%d %s %s", p.Line, p.Col, p.Rule, p.Message)
		}
	}
	return b.String()
}

var _ = io.EOF
