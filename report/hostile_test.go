package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/check"
	diagdoctor "github.com/dorisdiag/dorisdiag/diag/doctor"
	"github.com/dorisdiag/dorisdiag/diag/metrics"
	diagmv "github.com/dorisdiag/dorisdiag/diag/mv"
	"github.com/dorisdiag/dorisdiag/diag/sources"
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/diag/streams/whatif"
	"github.com/dorisdiag/dorisdiag/diag/tsotool"
	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/exposition/fix"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/report/demo"
	doctorreport "github.com/dorisdiag/dorisdiag/report/doctor"
	"github.com/dorisdiag/dorisdiag/report/explain"
	metricsreport "github.com/dorisdiag/dorisdiag/report/metrics"
	mvreport "github.com/dorisdiag/dorisdiag/report/mv"
	tsoreport "github.com/dorisdiag/dorisdiag/report/tso"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Issue 14, case 5: ESC sequences and bidi overrides in object names and in
// tasks() error messages were printed raw in tables and markdown. The names
// of the incident scenario are replaced by hostile ones (consistently, so
// every join still holds), and every registered (kind, human format) must
// print them inert.

// hostile maps a scenario name to its hostile form, as JSON string text.
var hostile = []struct{ from, to string }{
	{"mv_payments_rollup", `mv_pay\u001b[2J\u001b[8mments_rollup`},  // clear screen, conceal
	{"s_orders_audit", `s_orders\u202eaudit`},                       // bidi override
	{"s_orders_cdc", `s_orders\ncdc`},                               // a newline in a name
	{"s_events_dup", `s_events\u2066dup\u0007`},                     // isolate, BEL
	{"detailMessage", `detail\u001b]0;pwned\u0007\u009b31mMessage`}, // OSC title, C1 CSI
	{"mv_big_join", `mv_big\u007fjoin\r`},                           // DEL, CR
}

func hostileSnapshot(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	s, err := scenario.Load("incident")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	for _, h := range hostile {
		text = strings.ReplaceAll(text, h.from, h.to)
	}
	out, err := snapshot.Decode([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hostileMetrics is a /metrics payload whose HELP text and label values
// carry escapes.
const hostileMetrics = "# HELP doris_fe_x help \x1b[2Jtext \u202e\n# TYPE doris_fe_x gauge\ndoris_fe_x{table=\"a\x1b[8mb\u2067\"} 1\ndoris_fe_y{t=\"q\"q\"} 2\n"

// hostileDoctor is a doctor reading whose node names, hop errors, labels
// and configuration values carry escapes.
func hostileDoctor(s *snapshot.Snapshot, evil string) *diagdoctor.Result {
	c := *s
	c.Doctor = &snapshot.Doctor{Parts: []string{"config", "net", "labels"}, PolicySource: "unknown",
		Session: snapshot.DoctorSession{Host: evil, Name: evil, Known: true},
		Config: []snapshot.ConfigReading{{Node: "be", ID: evil, Host: evil, Source: "GET /api/show_config",
			Entries: []snapshot.ConfigEntry{{Key: "disable_auto_compaction", Name: "disable_auto_compaction", Value: "true"}, {Key: "enable_feature_binlog", Name: evil, Value: evil}}}},
		Hops:   []snapshot.Hop{{Kind: snapshot.HopBEHTTP, Node: evil, Target: evil, Outcome: snapshot.OutcomeReadTimeout, Error: evil, Via: evil, Policies: []string{evil}}},
		Labels: []snapshot.LabelState{{DB: evil, Label: evil, State: "UNKNOWN"}, {DB: evil, Label: evil, Error: evil}},
		Gaps:   []snapshot.DoctorGap{{Source: evil, Kind: snapshot.GapPrivilege, Privilege: evil, Error: evil}}}
	return diagdoctor.Analyze(&c, diagdoctor.Options{})
}

// hostileDocs builds one document of every kind from hostile input.
func hostileDocs(t *testing.T) map[string]report.Doc {
	s := hostileSnapshot(t)
	series := []*snapshot.Snapshot{s}
	res := check.Run(series, check.Options{})
	var worstStream *streams.Stream
	for i := range res.Streams.Streams {
		if strings.Contains(res.Streams.Streams[i].Name, "\n") {
			worstStream = &res.Streams.Streams[i]
		}
	}
	m := res.WorstMV()
	if worstStream == nil || m == nil || !strings.Contains(m.Name, "\x1b") {
		t.Fatalf("the hostile scenario lost its hostile names (stream %v, mv %v)", worstStream, m)
	}
	var items []diagmv.ListItem
	for i := range res.MVs.MVs {
		x := &res.MVs.MVs[i]
		items = append(items, x.ListItem(res.MVs.FindingsFor(x.DB, x.Name)))
	}
	lint, err := exposition.Lint(strings.NewReader(hostileMetrics), metrics.LintOptions(exposition.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	ma := metrics.AnalyzePayloads([]metrics.Input{{Source: "be\x1b[2J1:8040", Lint: lint}}, metrics.Options{IncludeStyle: true})
	var fixed bytes.Buffer
	rep, err := fix.Fix(strings.NewReader(hostileMetrics), &fixed, metrics.LintOptions(exposition.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	evil := "x\x1b[2J\u202e\ny"
	return map[string]report.Doc{
		"check":                 report.CheckDoc{Result: res},
		"demo":                  demo.DemoDoc{Check: res},
		"streams":               report.StreamsDoc{Now: res.Now, Streams: res.Streams.Streams, Findings: res.Streams.Findings},
		"stream":                report.StreamDoc{Now: res.Now, Stream: worstStream, Findings: res.Streams.FindingsFor(worstStream.DB, worstStream.Name)},
		"mv_list":               mvreport.MVListDoc{Now: res.Now, MVs: items, Findings: res.MVs.Findings},
		"mv_explain":            mvreport.MVExplainDoc{Now: res.Now, MV: m, Findings: res.MVs.FindingsFor(m.DB, m.Name)},
		"headroom":              report.HeadroomDoc{HeadroomPlan: whatif.PlanHeadroom(series, streams.Options{}, res.Now.Add(20*time.Hour)), All: true},
		"explain":               explain.ExplainDoc{Codes: diag.Codes()},
		"snapshot_summary":      report.SnapshotSummaryDoc{Summary: sources.Summarize(s)},
		"tso_decode":            tsoreport.TSODecodeDoc{DecodeResult: tsotool.Decode([]string{"470819222323200000", evil}, time.UTC)},
		"tso_headroom":          tsoreport.TSOHeadroomDoc{},
		"tso_encode":            tsoreport.TSOEncodeDoc{Input: evil},
		"tso_diff":              tsoreport.TSODiffDoc{},
		"tso_lag":               tsoreport.TSOLagDoc{LagResult: tsotool.LagResult{Lag: evil, Note: evil}},
		"metrics_lint":          metricsreport.NewMetricsLintDoc(ma.Payloads[0], 10),
		"metrics_lint_snapshot": metricsreport.NewMetricsLintSnapshotDoc(metrics.Analyze(s, metrics.Options{IncludeStyle: true}), 10),
		"metrics_scrape":        metricsreport.NewMetricsScrapeDoc(ma, []metricsreport.ScrapeFetch{{Reachable: true, Status: 200}}, "targets"),
		"metrics_fix":           metricsreport.MetricsFixDoc{Source: evil, Fix: rep, Findings: ma.Findings},
		"watch_error":           report.WatchErrorDoc{Error: evil},
		"doctor":                doctorreport.DoctorDoc{Result: hostileDoctor(s, evil)},
	}
}

// A terminal acts on these; none may come out of a human format raw.
var dangerous = regexp.MustCompile("[\x00-\x09\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")

// Our own colour: what Style writes, and nothing else.
var ownSGR = regexp.MustCompile("\x1b\\[(?:0|1|1;91|91|92|93|94|90|2)?m")

func TestHostileTextIsInertInEveryHumanFormat(t *testing.T) {
	docs := hostileDocs(t)
	for kind := range report.Renderers {
		doc, ok := docs[kind]
		if !ok {
			t.Errorf("kind %s has no hostile document in this test: add one", kind)
			continue
		}
		for _, f := range []report.Format{report.FormatTable, report.FormatWide, report.FormatMarkdown} {
			if _, ok := report.Renderers[kind][f]; !ok {
				continue
			}
			for _, color := range []bool{false, true} {
				for _, width := range []int{0, 80} {
					var buf bytes.Buffer
					st := report.NewStyle(&buf, color).WithWidth(width)
					if err := report.Emit(&buf, st, f, doc); err != nil && !errors.Is(err, nil) {
						t.Errorf("%s -o %s: %v", kind, f, err)
					}
					out := buf.String()
					rest := ownSGR.ReplaceAllString(out, "")
					if loc := dangerous.FindStringIndex(rest); loc != nil {
						lo := max(0, loc[0]-40)
						t.Errorf("%s -o %s (colour %v, width %d): raw control %q near %q", kind, f, color, width, rest[loc[0]:loc[1]], rest[lo:min(len(rest), loc[1]+20)])
					}
					if !color && strings.Contains(out, "\x1b") {
						t.Errorf("%s -o %s without colour: an ESC is printed", kind, f)
					}
				}
			}
		}
	}
}

// A newline in a name does not break a table row: the row of s_orders\ncdc
// is one line, with the name escaped in it.
func TestNewlineInNameKeepsTheRow(t *testing.T) {
	docs := hostileDocs(t)
	var buf bytes.Buffer
	if err := report.Emit(&buf, report.Style{}, report.FormatWide, docs["streams"]); err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(l, `demo.s_orders\ncdc `) {
			row = l
		}
		if strings.HasPrefix(l, "cdc") {
			t.Errorf("a line starts with the rest of the name: %q", l)
		}
	}
	if !strings.Contains(row, "cannot_resume") {
		t.Errorf("the row of demo.s_orders\\ncdc is not one line with its state:\n%s", buf.String())
	}
}

// JSON is unchanged: the names come back as the cluster sent them.
func TestJSONKeepsHostileTextAsIs(t *testing.T) {
	docs := hostileDocs(t)
	var buf bytes.Buffer
	if err := report.Emit(&buf, report.Style{}, report.FormatJSON, docs["streams"]); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Streams []struct{ Name string } `json:"streams"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, s := range got.Streams {
		found[s.Name] = true
	}
	for _, want := range []string{"s_orders\ncdc", "s_orders\u202eaudit", "s_events\u2066dup\u0007"} {
		if !found[want] {
			t.Errorf("JSON lost %q", want)
		}
	}
}

// Sanitize, one case per class.
func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain.name_1":   "plain.name_1",
		"a\nb\tc\rd":     `a\nb\tc\rd`,
		"\x1b[2J":        `\e[2J`,
		"bel\x07del\x7f": `bel\x07del\x7f`,
		"c1\u009b31m":    `c1\u009b31m`,
		"bidi\u202eRLO":  `bidi\u202eRLO`,
		"iso\u2066x":     `iso\u2066x`,
		"bad\xffutf8":    `bad\xffutf8`,
		"ünïcødé 名前":     "ünïcødé 名前",
		"forged\uE000x":  `forged\ue000x`,
	} {
		if got := report.Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}
