package lint_test

import (
	"errors"
	"fmt"
	"github.com/dorisdiag/dorisdiag/exposition/consumers"
	"github.com/dorisdiag/dorisdiag/exposition/lint"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
)

// serverVerdict is the reference of what a real Prometheus server does with
// a payload scraped as Prometheus text (prometheus/prometheus v0.316.0, a
// test-only dependency: it is never linked into the binary). It runs the
// server's own parser, model/textparse.PromParser, the way the scrape loop
// does (scrape/scrape.go, scrapeLoopAppender.append), and applies the
// checks that loop and the TSDB head make on each series:
//
//   - a parser error ends the loop and fails the scrape (append returns it,
//     the appender is rolled back, `up` is 0): dropped;
//   - a series without a metric name, or with a name or label name or value
//     the UTF-8 validation scheme refuses (labels.IsValid, the default
//     metric_name_validation_scheme "utf8"): dropped;
//   - duplicate label names: the head appender answers "label name ... is not
//     unique" (tsdb/head_append.go), which checkAddError does not tolerate:
//     dropped;
//   - the same series twice without a timestamp: storage.
//     ErrDuplicateSampleForTimestamp, which checkAddError counts and skips:
//     the scrape is kept, the second sample is not stored.
//
// It returns "" when the scrape is kept, else why it is dropped.
func serverVerdict(data []byte) (dropped string) {
	defer func() {
		if r := recover(); r != nil {
			dropped = fmt.Sprintf("parser panic: %v", r)
		}
	}()
	if len(data) == 0 {
		return ""
	}
	// Doris FEs send "text/plain", BEs "text/plain; version=0.0.4": both
	// select PromParser (textparse.New).
	p, err := textparse.New(data, "text/plain; version=0.0.4", labels.NewSymbolTable(), textparse.ParserOptions{})
	if p == nil {
		return fmt.Sprintf("no parser: %v", err)
	}
	seen := map[string]bool{}
	var lset labels.Labels
	for {
		et, err := p.Next()
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			return err.Error()
		}
		switch et {
		case textparse.EntryType, textparse.EntryHelp, textparse.EntryUnit, textparse.EntryComment:
			continue
		}
		var met []byte
		var ts *int64
		if et == textparse.EntryHistogram {
			met, ts, _, _ = p.Histogram()
		} else {
			met, ts, _ = p.Series()
		}
		p.Labels(&lset)
		if !lset.Has(model.MetricNameLabel) {
			return "no metric name"
		}
		if !lset.IsValid(model.UTF8Validation) {
			return "invalid metric name or label names: " + lset.String()
		}
		if name, dup := lset.HasDuplicateLabelNames(); dup {
			return fmt.Sprintf("label name %q is not unique", name)
		}
		key := string(met)
		if seen[key] && ts == nil {
			continue // ErrDuplicateSampleForTimestamp: counted, scrape kept
		}
		seen[key] = true
	}
}

// serverKeeps is serverVerdict as a word of the vocabulary.
func serverKeeps(data []byte) string {
	if serverVerdict(data) == "" {
		return consumers.ServerKept
	}
	return consumers.ServerDropped
}

// serverCorpus is every payload the differential test runs: the fuzz seeds
// of both fuzz targets (the committed corpus files included), one payload per
// problem class of the linter (consumerCases), and the Doris payloads of
// fixtures/metrics.
func serverCorpus(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for i, s := range lint.FuzzSeeds {
		out[fmt.Sprintf("seed-%d", i)] = []byte(s)
	}
	for _, c := range consumerCases {
		out["case-"+c.name] = []byte(c.payload)
	}
	for _, dir := range []string{"FuzzLintAgreesWithExpfmt", "FuzzServerAgreesWithPrometheus"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", dir, "*"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if b, ok := fuzzFileBytes(string(data)); ok {
				out[dir+"/"+filepath.Base(f)] = b
			}
		}
	}
	files, _ := filepath.Glob("../../fixtures/metrics/*.prom")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out["fixture-"+filepath.Base(f)] = data
	}
	return out
}

// fuzzFileBytes reads a "go test fuzz v1" file holding one []byte.
func fuzzFileBytes(s string) ([]byte, bool) {
	lines := strings.SplitN(s, "\n", 3)
	if len(lines) < 2 || lines[0] != "go test fuzz v1" {
		return nil, false
	}
	arg := strings.TrimSpace(lines[1])
	if !strings.HasPrefix(arg, "[]byte(") || !strings.HasSuffix(arg, ")") {
		return nil, false
	}
	v, err := strconv.Unquote(arg[len("[]byte(") : len(arg)-1])
	if err != nil {
		return nil, false
	}
	return []byte(v), true
}

// TestServerAgreesWithPrometheus: PrometheusServer, the production code,
// says what the real parser and scrape checks say on every payload of the
// corpus.
func TestServerAgreesWithPrometheus(t *testing.T) {
	corpus := serverCorpus(t)
	if len(corpus) < 250 {
		t.Fatalf("corpus has %d payloads; expected the seeds, the cases and the fixtures", len(corpus))
	}
	for name, data := range corpus {
		checkServerAgrees(t, name, data)
	}
}

func FuzzServerAgreesWithPrometheus(f *testing.F) {
	for _, s := range lint.FuzzSeeds {
		f.Add([]byte(s))
	}
	for _, c := range consumerCases {
		f.Add([]byte(c.payload))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkServerAgrees(t, "fuzz", data) })
}

func checkServerAgrees(t *testing.T, name string, data []byte) {
	t.Helper()
	want := serverVerdict(data)
	got := consumers.PrometheusServer(data)
	if (want == "") != (got.Verdict == consumers.ServerKept) {
		t.Errorf("%s %q: the server (prometheus v0.316.0) says %q, PrometheusServer says %s (%s)",
			name, data, want, got.Verdict, got.Reason)
	}
}
