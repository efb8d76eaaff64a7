package watch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// source is a fake Source: round i loads snaps[i], or fails with errs[i].
type source struct {
	files bool
	check error
	errs  map[int]error
	n     int
}

func (s *source) Files() bool  { return s.files }
func (s *source) Check() error { return s.check }
func (s *source) Load() ([]*snapshot.Snapshot, error) {
	s.n++
	if err := s.errs[s.n]; err != nil {
		return nil, err
	}
	snap := &snapshot.Snapshot{}
	snap.Cluster.Now = time.Date(2026, 9, 15, 12, 0, s.n, 0, time.UTC)
	return []*snapshot.Snapshot{snap}, nil
}

var errGate = errors.New("gate")

func env(out, errb io.Writer, src Source, format report.Format) Env {
	return Env{Out: out, Err: errb, Format: format, Source: src,
		EmitError: func(w io.Writer, d report.Doc) error {
			_, err := fmt.Fprintf(w, "{\n  \"kind\": %q,\n  \"round\": %d\n}\n", d.Kind(), d.(report.WatchErrorDoc).Watch.Round)
			return err
		},
		Verdict: func(err error) bool { return err == errGate }}
}

// doc is a run function: one indented JSON document per round, with the
// series length and the round, and the gate's verdict.
func doc(r Round) error {
	round := 0
	if r.Watch != nil {
		round = r.Watch.Round
	}
	fmt.Fprintf(r.Out, "{\n  \"series\": %d,\n  \"round\": %d\n}\n", len(r.Series), round)
	return errGate
}

// TestRunOnceWritesStdout: without --watch the run writes to the command's
// stdout, once, with no "watch" round, and its verdict is the result.
func TestRunOnceWritesStdout(t *testing.T) {
	var out, errb bytes.Buffer
	err := Run(Options{}, env(&out, &errb, &source{}, report.FormatJSON), func(r Round) error {
		if r.Out != &out || r.Watch != nil || len(r.Series) != 1 {
			t.Errorf("round %+v: want stdout, no watch field, one snapshot", r)
		}
		return doc(r)
	})
	if err != errGate || !strings.Contains(out.String(), "\n  \"series\": 1") {
		t.Errorf("err %v, out %q", err, out.String())
	}
}

// TestRunWatchIsNDJSONAroundAnyRun: -o json --watch turns whatever the run
// writes into one line per round; the series grows; the last round's
// verdict is the result; a failed round writes the error document, on one
// line too, and says so on stderr.
func TestRunWatchIsNDJSONAroundAnyRun(t *testing.T) {
	var out, errb bytes.Buffer
	src := &source{errs: map[int]error{2: errors.New("connection refused")}}
	err := Run(Options{Interval: time.Millisecond, Rounds: 3}, env(&out, &errb, src, report.FormatJSON), doc)
	want := `{"series":1,"round":1}` + "\n" + `{"kind":"watch_error","round":2}` + "\n" + `{"series":2,"round":3}` + "\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	if err != errGate || errb.String() != "dorisdiag: round 2: connection refused\n" {
		t.Errorf("err %v, stderr %q", err, errb.String())
	}
}

// TestRunWatchPipeHeaders: on a pipe each round is appended under its
// header, a blank line between rounds.
func TestRunWatchPipeHeaders(t *testing.T) {
	var out, errb bytes.Buffer
	if err := Run(Options{Interval: time.Millisecond, Rounds: 2}, env(&out, &errb, &source{}, report.FormatTable), func(r Round) error {
		fmt.Fprintf(r.Out, "body %d\n", r.Watch.Round)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := "# round 1 at cluster time 2026-09-15T12:00:01Z (every 1ms; 1 snapshots in the series)\nbody 1\n\n" +
		"# round 2 at cluster time 2026-09-15T12:00:02Z (every 1ms; 2 snapshots in the series)\nbody 2\n"
	if out.String() != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", out.String(), want)
	}
}

// TestRunFileReplacedEachRound: -f FILE holds the last round only, and
// nothing reaches stdout.
func TestRunFileReplacedEachRound(t *testing.T) {
	var out, errb bytes.Buffer
	path := filepath.Join(t.TempDir(), "out.txt")
	if err := Run(Options{Interval: time.Millisecond, Rounds: 2, File: path}, env(&out, &errb, &source{}, report.FormatTable), func(r Round) error {
		fmt.Fprintf(r.Out, "body %d\n", r.Watch.Round)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "body 2\n" || out.Len() != 0 {
		t.Errorf("file %q (%v), stdout %q", b, err, out.String())
	}
}

// TestRunUsageErrors: every misuse of the --watch flags is a UsageError,
// found before the source is read; a run's own error stops the loop.
func TestRunUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		o      Options
		src    *source
		format report.Format
		want   string
	}{
		{Options{Interval: -time.Second}, &source{}, report.FormatTable, "--watch -1s: want a positive interval"},
		{Options{Rounds: 2}, &source{}, report.FormatTable, "--watch-rounds needs --watch"},
		{Options{Interval: time.Second}, &source{files: true}, report.FormatTable, "not --snapshot files"},
		{Options{Interval: time.Second}, &source{}, report.FormatProm, "-o prom --watch needs -f FILE"},
		{Options{Interval: time.Second, Rounds: -1}, &source{}, report.FormatTable, "--watch-rounds -1"},
	} {
		err := Run(tc.o, env(io.Discard, io.Discard, tc.src, tc.format), doc)
		var ue UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) || tc.src.n != 0 {
			t.Errorf("%+v: %v (loads %d); want a usage error %q before any load", tc.o, err, tc.src.n, tc.want)
		}
	}
	bad := errors.New("--db: no database")
	src := &source{}
	if err := Run(Options{Interval: time.Millisecond, Rounds: 3}, env(io.Discard, io.Discard, src, report.FormatTable), func(Round) error { return bad }); err != bad || src.n != 1 {
		t.Errorf("a run's error: %v after %d rounds; want it at once", err, src.n)
	}
}
