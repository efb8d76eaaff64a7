package cmd

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"

	"github.com/dorisdiag/dorisdiag/fixtures/emulator"
	"github.com/dorisdiag/dorisdiag/scenario"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Why 10 (issue 14), the live half: with information_schema.table_streams
// unreadable (the emulator fails every read of it, over the MySQL wire), an
// MV whose refresh is AUTO silently disappeared from `mv list` (it was
// taken for a non-IVM MV: no internal stream was seen), and `streams`
// listed no stream and no finding. Every MV and every stream another source
// names is still listed, its state unknown, with the reason.
func TestUnreadableTableStreamsListsEveryObjectUnknown(t *testing.T) {
	for _, name := range []string{"legacy", "incident"} {
		t.Run(name, func(t *testing.T) {
			snap, err := scenario.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			// One MV refreshed AUTO (incremental when it can): only its
			// internal streams tell that it is an IVM MV.
			auto := &snap.MVs[0]
			auto.RefreshInfo = strings.Replace(auto.RefreshInfo, "INCREMENTAL", "AUTO", 1)
			auto.IvmBaseTableStreams = ""
			if err := snap.Validate(); err != nil {
				t.Fatal(err)
			}
			if auto.Refresh.Method != "AUTO" {
				t.Fatalf("refresh %q parsed as %q", auto.RefreshInfo, auto.Refresh.Method)
			}
			live := liveArgs(t, snap, emulator.Options{Legacy: name == "legacy", FailSources: []string{snapshot.SourceTableStreams}})

			out, stderr, code := run(t, nil, "", append([]string{"mv", "list", "-o", "json"}, live...)...)
			if code != cmdutil.ExitOK {
				t.Fatalf("mv list: exit %d %s", code, stderr)
			}
			var list struct {
				MVs []struct {
					DB             string `json:"db"`
					Name           string `json:"name"`
					FreshnessState string `json:"freshness_state"`
					StateSource    string `json:"state_source"`
				} `json:"mvs"`
			}
			if err := json.Unmarshal([]byte(out), &list); err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, m := range list.MVs {
				got = append(got, m.Name)
				if m.StateSource == "client" && m.FreshnessState != "unknown" {
					t.Errorf("%s: client state %q without table_streams, want unknown", m.Name, m.FreshnessState)
				}
			}
			for _, m := range snap.MVs {
				want = append(want, m.Name)
			}
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("mv list shows %v, want every MV %v", got, want)
			}
			if name == "legacy" {
				out, stderr, code = run(t, nil, "", append([]string{"mv", "explain", auto.DB + "." + auto.Name, "-o", "json"}, live...)...)
				if code != cmdutil.ExitOK {
					t.Fatalf("mv explain: exit %d %s", code, stderr)
				}
				var ex struct {
					MV struct {
						FreshnessState string `json:"freshness_state"`
						StateReason    string `json:"state_reason"`
					} `json:"mv"`
				}
				json.Unmarshal([]byte(out), &ex)
				if ex.MV.FreshnessState != "unknown" || !strings.Contains(ex.MV.StateReason, "information_schema.table_streams could not be read") ||
					!strings.Contains(ex.MV.StateReason, "failed to read information_schema.table_streams") {
					t.Errorf("mv explain %s: state %q reason %q, want unknown because table_streams could not be read", auto.Name, ex.MV.FreshnessState, ex.MV.StateReason)
				}
			}

			out, stderr, code = run(t, nil, "", append([]string{"streams", "-o", "json"}, live...)...)
			if code != cmdutil.ExitOK {
				t.Fatalf("streams: exit %d %s", code, stderr)
			}
			var streams struct {
				Streams []struct {
					ID          int64  `json:"id"`
					Name        string `json:"name"`
					State       string `json:"state"`
					StateReason string `json:"state_reason"`
				} `json:"streams"`
				Findings []struct {
					Code   string
					Object struct{ Name string }
				} `json:"findings"`
			}
			if err := json.Unmarshal([]byte(out), &streams); err != nil {
				t.Fatal(err)
			}
			listed := map[int64]bool{}
			for _, s := range streams.Streams {
				listed[s.ID] = true
				if s.State != "unknown" || !strings.Contains(s.StateReason, "information_schema.table_streams could not be read") {
					t.Errorf("stream %s: state %q reason %q, want unknown because table_streams could not be read", s.Name, s.State, s.StateReason)
				}
			}
			flagged := map[string]bool{}
			for _, f := range streams.Findings {
				if f.Code == "STREAM_STATE_UNKNOWN" {
					flagged[f.Object.Name] = true
				}
			}
			for _, c := range snap.Consumption {
				if !listed[c.StreamID] {
					t.Errorf("stream %s.%s (id %d, in table_stream_consumption) is not listed", c.DB, c.StreamName, c.StreamID)
				}
				if !flagged[c.StreamName] {
					t.Errorf("stream %s.%s has no STREAM_STATE_UNKNOWN finding", c.DB, c.StreamName)
				}
			}
			if len(streams.Streams) == 0 {
				t.Error("no stream listed")
			}

			// The summary does not say "0 rows" for a source nothing was read from.
			out, stderr, code = run(t, nil, "", append([]string{"snapshot", "--summary", "-o", "json"}, live...)...)
			if code != cmdutil.ExitOK {
				t.Fatalf("snapshot --summary: exit %d %s", code, stderr)
			}
			var sum struct {
				Sources []struct {
					Source string `json:"source"`
					Rows   *int   `json:"rows"`
				} `json:"sources"`
			}
			json.Unmarshal([]byte(out), &sum)
			for _, src := range sum.Sources {
				if src.Source == snapshot.SourceTableStreams && src.Rows != nil {
					t.Errorf("snapshot --summary: %s has %d rows, want none (it could not be read)", src.Source, *src.Rows)
				}
			}
		})
	}
}

// Why 10 (issue 14), mv_infos(): with mv_infos() unreadable, `mv list`
// said "No IVM materialized views." Every MV that ivm_mv_status, jobs(),
// tasks() or an internal stream names is listed; the client-side state is
// unknown, with the reason (the server's state, where ivm_mv_status has it,
// is its own source and stays).
func TestUnreadableMVInfosListsEveryMV(t *testing.T) {
	for _, name := range []string{"legacy", "incident"} {
		t.Run(name, func(t *testing.T) {
			snap, err := scenario.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			live := liveArgs(t, snap, emulator.Options{Legacy: name == "legacy", FailSources: []string{snapshot.SourceMVInfos}})
			out, stderr, code := run(t, nil, "", append([]string{"mv", "list", "-o", "json"}, live...)...)
			if code != cmdutil.ExitOK {
				t.Fatalf("mv list: exit %d %s", code, stderr)
			}
			var list struct {
				MVs []struct {
					Name           string `json:"name"`
					FreshnessState string `json:"freshness_state"`
					StateSource    string `json:"state_source"`
				} `json:"mvs"`
			}
			if err := json.Unmarshal([]byte(out), &list); err != nil {
				t.Fatal(err)
			}
			listed := map[string]bool{}
			for _, m := range list.MVs {
				listed[m.Name] = true
				if m.StateSource == "client" && m.FreshnessState != "unknown" {
					t.Errorf("%s: client state %q without mv_infos(), want unknown", m.Name, m.FreshnessState)
				}
			}
			for _, m := range snap.MVs {
				if !listed[m.Name] {
					t.Errorf("MV %s not listed", m.Name)
				}
			}
			if name != "legacy" {
				return
			}
			mv := snap.MVs[0]
			out, stderr, code = run(t, nil, "", append([]string{"mv", "explain", mv.DB + "." + mv.Name, "-o", "json"}, live...)...)
			var ex struct {
				MV struct {
					FreshnessState string `json:"freshness_state"`
					StateReason    string `json:"state_reason"`
				} `json:"mv"`
			}
			json.Unmarshal([]byte(out), &ex)
			if code != cmdutil.ExitOK || ex.MV.FreshnessState != "unknown" || !strings.Contains(ex.MV.StateReason, "mv_infos() could not be read") {
				t.Errorf("mv explain %s: exit %d state %q reason %q %s", mv.Name, code, ex.MV.FreshnessState, ex.MV.StateReason, stderr)
			}
		})
	}
}
