package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"io"
	"strings"
	"testing"
	"time"
)

func TestRedactText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		rule           string
	}{
		{"password anywhere", "dial failed: Access denied (using password: s3cr3t-pw)", "dial failed: Access denied (using password: <redacted>)", RulePassword},
		{"url user info", "GET http://alice:s3cr3t-pw@fe1:8030/metrics", "GET http://fe1:8030/metrics", RuleURLUserInfo},
		{"url user only", "see https://bob@example.com/x", "see https://example.com/x", RuleURLUserInfo},
		{"authorization header", "Authorization: Basic YWxpY2U6eHl6", "Authorization: <redacted>", RuleAuthorization},
		{"authorization json-ish", `{"Authorization":"Bearer abc.def"}`, `{"Authorization":"<redacted>"}`, RuleAuthorization},
		{"sensitive key = value", "auth_token = 5ecret-tok", "auth_token = <redacted>", RuleSensitiveConfig},
		{"sensitive key quoted", `s3_secret_key="AKxyz"`, `s3_secret_key="<redacted>"`, RuleSensitiveConfig},
		{"access key suffix", "oss_ak: AKIA1234", "oss_ak: <redacted>", RuleSensitiveConfig},
		{"server mask kept", "auth_token=********", "auth_token=********", ""},
		{"not a secret key", "is_skipped=true rows_skipped: yes task=1", "is_skipped=true rows_skipped: yes task=1", ""},
		{"short password never searched", "abc", "abc", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pw := "s3cr3t-pw"
			if tc.name == "short password never searched" {
				pw = "abc"
			}
			r := NewRedactor(Options{Password: pw})
			if got := r.Text(tc.in); got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
			c := r.Counts()
			if tc.rule != "" && c[tc.rule] == 0 {
				t.Errorf("rule %s not counted: %v", tc.rule, c)
			}
			if tc.rule == "" && len(c) != 0 {
				t.Errorf("counted %v for an unchanged text", c)
			}
		})
	}
}

func TestRedactJSONConfigRowsAndSQL(t *testing.T) {
	r := NewRedactor(Options{SQLLength: 10})
	in := `{"rows":[{"Key":"auth_token","Value":"tok-123","Type":"String"},{"Key":"fe_meta_auth_token","Value":""},
	{"Key":"mysql_ssl_default_ca_certificate_password","Value":"doris"},{"Key":"qe_slow_log_ms","Value":"5000"}],
	"mvs":[{"query_sql":"SELECT a, b, c FROM t WHERE x = 1","n":470819222323200001}],"password":"p"}`
	out, err := r.apply(contentJSON, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, leak := range []string{"tok-123", `"doris"`, "WHERE x", `"p"`} {
		if strings.Contains(s, leak) {
			t.Errorf("%s left in:\n%s", leak, s)
		}
	}
	for _, keep := range []string{`"5000"`, "470819222323200001", "SELECT a, ", "[cut: 33 characters]", `"Value": ""`} {
		if !strings.Contains(s, keep) {
			t.Errorf("%s lost:\n%s", keep, s)
		}
	}
	c := r.Counts()
	if c[RuleSensitiveConfig] != 3 || c[RuleSQLText] != 1 {
		t.Errorf("counts %v: want 3 sensitive values (the empty one is nothing hidden) and 1 SQL cut", c)
	}
}

func TestPseudonyms(t *testing.T) {
	r := NewRedactor(Options{RedactNames: true})
	r.Learn(KindDB, "sales")
	r.Learn(KindTable, "orders")
	r.Learn(KindTable, "orders_v2")
	r.Learn(KindMV, "mv_rev")
	r.learnStream("__doris_ivm_stream_mv_rev_1a_2b")
	r.LearnHostPort("10.0.0.7:8030")
	r.Learn(KindDB, "N/A") // a sentinel, never a name
	for _, tc := range []struct{ in, want string }{
		{"SELECT * FROM `sales`.`orders` JOIN sales.orders_v2", "SELECT * FROM `db_1`.`table_1` JOIN db_1.table_2"},
		{`doris_fe_table_data_size{db_name="sales",table_name="orders"} 1`, `doris_fe_table_data_size{db_name="db_1",table_name="table_1"} 1`},
		{"my_orders ordersX", "my_orders ordersX"},
		{"stream __doris_ivm_stream_mv_rev_1a_2b of mv_rev", "stream __doris_ivm_stream_mv_1_1a_2b of mv_1"},
		{"http://10.0.0.7:8030/metrics 10.0.0.70", "http://host-1:8030/metrics 10.0.0.70"},
		{"N/A", "N/A"},
	} {
		if got := r.Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	m := r.Mapping()
	seen := map[string]string{}
	for _, e := range m {
		seen[e.Pseudonym] = e.Name
	}
	if seen["table_1"] != "orders" || seen["host-1"] != "10.0.0.7" || seen["__doris_ivm_stream_mv_1_1a_2b"] != "__doris_ivm_stream_mv_rev_1a_2b" {
		t.Errorf("mapping %+v", m)
	}
	// Without --redact-names nothing is learnt.
	r = NewRedactor(Options{})
	r.Learn(KindDB, "sales")
	if got := r.Text("sales"); got != "sales" || len(r.Mapping()) != 0 {
		t.Errorf("names redacted without RedactNames: %q", got)
	}
}

func TestLearnProm(t *testing.T) {
	r := NewRedactor(Options{RedactNames: true})
	r.LearnProm("x{db_name=\"d1\",mv_name=\"m1\",stream_name=\"s1\",table_name=\"t1\",instance=\"h1:9\"} 1\n")
	kinds := map[string]string{}
	for _, e := range r.Mapping() {
		kinds[e.Name] = e.Kind
	}
	want := map[string]string{"d1": KindDB, "m1": KindMV, "s1": KindStream, "t1": KindTable, "h1": KindHost}
	for n, k := range want {
		if kinds[n] != k {
			t.Errorf("%s learnt as %q, want %q (%v)", n, kinds[n], k, kinds)
		}
	}
}

// TestWriterManifestAndCut: each member is listed with its size and
// hash; a text member over the limit is cut at a line and the cut
// recorded; a JSON one is skipped; the manifest is itself redacted.
func TestWriterManifestAndCut(t *testing.T) {
	var buf bytes.Buffer
	r := NewRedactor(Options{Password: "hunter2-pw"})
	w := NewWriter(&buf, "top", r, Manifest{StartedAt: time.Unix(0, 0), CommandLine: []string{"dorisdiag", "bundle", "--metrics=http://u:hunter2-pw@h/metrics"}}, 1024)
	big := strings.Repeat("metric_a 1\n", 200)
	if err := w.AddText("metrics/a.prom", []byte(big), Origin{Source: "GET http://h/metrics"}); err != nil {
		t.Fatal(err)
	}
	if err := w.AddJSON("big.json", map[string]string{"x": strings.Repeat("y", 2000)}, Origin{Source: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := w.AddJSON("../evil", 1, Origin{}); err == nil {
		t.Error("a member name outside the top directory was accepted")
	}
	if err := w.Close(time.Unix(1, 0), ""); err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	got := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		got[h.Name] = b
	}
	if len(got["top/metrics/a.prom"]) > 1024 || !bytes.HasSuffix(got["top/metrics/a.prom"], []byte("\n")) {
		t.Errorf("cut member: %d bytes", len(got["top/metrics/a.prom"]))
	}
	var m Manifest
	if err := json.Unmarshal(got["top/manifest.json"], &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 1 || m.Files[0].TruncatedFromBytes != int64(len(big)) || len(m.Skipped) != 1 || m.Skipped[0].Path != "big.json" {
		t.Errorf("manifest files %+v skipped %+v", m.Files, m.Skipped)
	}
	if strings.Contains(string(got["top/manifest.json"]), "hunter2") || strings.Contains(string(got["top/manifest.json"]), "u:") {
		t.Errorf("manifest holds the credentials: %s", got["top/manifest.json"])
	}
}

// An external consumer's offset and source tables are names the bundle
// holds (the snapshot's external_consumers, its findings): they get their
// pseudonyms like every other table.
func TestLearnSnapshotConsumerTables(t *testing.T) {
	r := NewRedactor(Options{RedactNames: true})
	r.LearnSnapshot(&snapshot.Snapshot{ExternalConsumers: []snapshot.ExternalConsumer{
		{Name: "flink-orders", OffsetTable: "ops.flink_offsets", SourceTable: "sales.`order lines`"},
	}})
	got := r.Text("offset table ops.flink_offsets of sales.`order lines`")
	for _, real := range []string{"ops", "flink_offsets", "sales", "order lines"} {
		if strings.Contains(got, real) {
			t.Errorf("Text kept %q: %q", real, got)
		}
	}
}
