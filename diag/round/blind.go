package round

import (
	"sort"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/diag/check"
	"github.com/dorisdiag/dorisdiag/diag/sources"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Never quiet when blind (docs/exporter.md "A round that cannot see"): the
// sources a round could not read are the SOURCE_UNREACHABLE findings check
// prints, with their severity. A critical one makes the round failed, and
// the series that depend on it are withheld (absent, with a reason series)
// rather than served as counted from nothing — a stream nobody could read is
// not "caught up".

// Areas of series that depend on one group of sources.
const (
	AreaStreams = "streams" // doris_fe_changelog_stream* (table_streams, table_stream_consumption)
	AreaMVs     = "mvs"     // doris_fe_ivm_mv*, the task ages (mv_infos(), jobs(), tasks())
)

// areaOf names the areas whose series depend on a source; a clock source
// feeds every area (no clock, no age).
var areaOf = map[string][]string{
	snapshot.SourceTSOStatus:              {AreaStreams, AreaMVs},
	snapshot.SourceShowTSOStatus:          {AreaStreams, AreaMVs},
	snapshot.SourceHTTPTSO:                {AreaStreams, AreaMVs},
	snapshot.SourceTableStreams:           {AreaStreams},
	snapshot.SourceTableStreamConsumption: {AreaStreams},
	snapshot.SourceMVInfos:                {AreaMVs},
	snapshot.SourceJobs:                   {AreaMVs},
	snapshot.SourceTasks:                  {AreaMVs},
}

// Unreadable is one source the round could not read, as its
// SOURCE_UNREACHABLE finding says.
type Unreadable struct {
	Source   string
	Severity diag.Severity
	Error    string
}

// Withheld is one area of series left out of a round, and the critical
// source whose gap withheld it.
type Withheld struct {
	Area   string
	Source string
}

// blindness reads the round's SOURCE_UNREACHABLE findings: every source
// not read with its severity, and the areas a critical one withholds.
func blindness(res *check.Result) ([]Unreadable, []Withheld) {
	var un []Unreadable
	seen := map[Withheld]bool{}
	var wh []Withheld
	for _, f := range res.Findings {
		if f.Code != sources.CodeUnreachable {
			continue
		}
		un = append(un, Unreadable{Source: f.Object.Name, Severity: f.Severity, Error: f.Evidence["error"]})
		if f.Severity < diag.SeverityCritical {
			continue
		}
		for _, a := range areaOf[f.Object.Name] {
			w := Withheld{Area: a, Source: f.Object.Name}
			if !seen[w] {
				seen[w] = true
				wh = append(wh, w)
			}
		}
	}
	sort.Slice(un, func(i, j int) bool { return un[i].Source < un[j].Source })
	sort.Slice(wh, func(i, j int) bool {
		if wh[i].Area != wh[j].Area {
			return wh[i].Area < wh[j].Area
		}
		return wh[i].Source < wh[j].Source
	})
	return un, wh
}

// Failed reports whether a critical source could not be read: the round
// counts as failed (docs/exporter.md), though what it could read is served.
func (r *Result) Failed() bool {
	for _, u := range r.Unreadable {
		if u.Severity >= diag.SeverityCritical {
			return true
		}
	}
	return false
}

// FailedReason names the critical sources not read, for /readyz and logs.
func (r *Result) FailedReason() string {
	out := ""
	for _, u := range r.Unreadable {
		if u.Severity < diag.SeverityCritical {
			continue
		}
		if out != "" {
			out += "; "
		}
		out += "critical source " + u.Source + " could not be read"
		if u.Error != "" {
			out += ": " + u.Error
		}
	}
	return out
}

// Blind reports whether the area's series are withheld this round.
func (r *Result) Blind(area string) bool {
	for _, w := range r.Withheld {
		if w.Area == area {
			return true
		}
	}
	return false
}
