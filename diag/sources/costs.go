package sources

import (
	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Cost is what an unreadable source costs the diagnosis (design.md
// "Partial failures": a source the diagnosis needs is critical, an optional
// one a warning naming what is not diagnosed, a superseded fallback no
// finding). sourceCosts is the one table; docs/findings.md is generated
// from it (report.FindingsDoc).
type Cost struct {
	Source string
	// Severity of SOURCE_UNREACHABLE when this source is unreadable.
	Severity diag.Severity
	// IfMVs, when set, replaces Severity when the snapshot shows that MVs
	// exist: the MV sources are what S1–S3 are diagnosed from.
	IfMVs diag.Severity
	// NotDiagnosed names what is not diagnosed without the source.
	NotDiagnosed string
	// Why justifies the severity (docs only).
	Why string
}

// clockSources are the three places the cluster clock is read from, in the
// collector's order: any one of them is the clock.
var clockSources = map[string]bool{
	snapshot.SourceTSOStatus: true, snapshot.SourceShowTSOStatus: true, snapshot.SourceHTTPTSO: true,
}

var sourceCosts = []Cost{
	{Source: snapshot.SourceTSOStatus, Severity: diag.SeverityCritical,
		NotDiagnosed: "the cluster clock: no pending age, retention or headroom can be computed",
		Why:          "\"now\" is the cluster's TSO; SHOW TSO STATUS and GET /api/tso are its fallbacks, and a gap one of them replaced is no finding"},
	{Source: snapshot.SourceShowTSOStatus, Severity: diag.SeverityCritical,
		NotDiagnosed: "the cluster clock (fallback of information_schema.tso_status)",
		Why:          "as information_schema.tso_status"},
	{Source: snapshot.SourceHTTPTSO, Severity: diag.SeverityCritical,
		NotDiagnosed: "the cluster clock (last fallback)",
		Why:          "as information_schema.tso_status"},
	{Source: snapshot.SourceTableStreams, Severity: diag.SeverityCritical,
		NotDiagnosed: "every stream: retention, headroom, pending age and stream state not diagnosed",
		Why:          "the list of streams is what every stream diagnosis starts from"},
	{Source: snapshot.SourceTableStreamConsumption, Severity: diag.SeverityCritical,
		NotDiagnosed: "every stream's offsets: pending age, retention, headroom and the next read not diagnosed",
		Why:          "the offsets are the input of every stream diagnosis; without them each stream is UNKNOWN"},
	{Source: snapshot.SourceMVInfos, Severity: diag.SeverityWarning, IfMVs: diag.SeverityCritical,
		NotDiagnosed: "MV definitions and refresh state: freshness, failures and fallbacks not diagnosed for the MVs it holds",
		Why:          "needed by the MV diagnosis: critical when MVs exist (jobs(), tasks(), ivm_mv_status or an IVM internal stream show one), a warning when no MV is known"},
	{Source: snapshot.SourceJobs, Severity: diag.SeverityWarning, IfMVs: diag.SeverityCritical,
		NotDiagnosed: "MV refresh jobs: a paused or stopped job not diagnosed, and MV databases found from streams only",
		Why:          "needed by the MV diagnosis, as mv_infos(); jobs('type'='mv') needs no ADMIN (JobsTableValuedFunction checks ADMIN only for other job types)"},
	{Source: snapshot.SourceTasks, Severity: diag.SeverityWarning, IfMVs: diag.SeverityCritical,
		NotDiagnosed: "MV refresh history: failed, queued, stuck and fallback refreshes not diagnosed",
		Why:          "needed by the MV diagnosis, as mv_infos(); a failed windowed read that the whole read replaced is no finding"},
	{Source: snapshot.SourceIVMMVStatus, Severity: diag.SeverityWarning,
		NotDiagnosed: "the server's MV status (ivm_mv_status): MVs diagnosed client-side only, no server/client comparison",
		Why:          "optional: the client-side MV diagnosis from mv_infos(), jobs(), tasks() and the streams still runs"},
	{Source: snapshot.SourceIVMDependencies, Severity: diag.SeverityWarning,
		NotDiagnosed: "the server's MV dependencies (ivm_dependencies): dependencies derived client-side only",
		Why:          "optional, as ivm_mv_status"},
	{Source: snapshot.SourceTableProperties, Severity: diag.SeverityWarning,
		NotDiagnosed: "changelog TTL of the base tables: retention, headroom and the next read unknown where SHOW CREATE TABLE did not read them",
		Why:          "optional: SHOW CREATE TABLE is its fallback; when that read every table, the gap is superseded and no finding"},
	{Source: snapshot.SourceShowCreateTable, Severity: diag.SeverityWarning,
		NotDiagnosed: "TTL and key model of the tables it did not read: retention and rows skipped in partitions with no offset unknown for them",
		Why:          "optional: the fallback of table_properties, bounded per run"},
	{Source: snapshot.SourceTableOptions, Severity: diag.SeverityWarning,
		NotDiagnosed: "key model of the base tables: rows skipped in partitions with no offset on a duplicate-key table judged by the read mode only",
		Why:          "optional: only the rule for partitions with no offset on duplicate-key tables uses it"},
	{Source: snapshot.SourcePartitions, Severity: diag.SeverityWarning,
		NotDiagnosed: "partition times and versions: the pending age of a partition with no offset has no bound, and excluded trigger tables changed since a refresh (on builds without ivm_dependencies) are not found",
		Why:          "optional: offsets and LAG still give every other pending age"},
	{Source: snapshot.SourceMetadataNameIDs, Severity: diag.SeverityInfo,
		NotDiagnosed: "base table IDs: shown only, nothing is diagnosed from them",
		Why:          "display only"},
	{Source: snapshot.SourceColumns, Severity: diag.SeverityWarning,
		NotDiagnosed: "the capability probe",
		Why:          "always superseded: each table is then read with SELECT * and its columns learnt from the result"},
	{Source: snapshot.SourceFrontends, Severity: diag.SeverityWarning,
		NotDiagnosed: "the FE list: FE liveness, the Master and versions not shown (the version comes from @@version_comment)",
		Why:          "optional; needs ADMIN or OPERATOR (ShowFrontendsCommand), so a least-privilege user is denied it on a healthy cluster"},
	{Source: snapshot.SourceBackends, Severity: diag.SeverityWarning,
		NotDiagnosed: "the BE list: BE liveness not shown and BE /metrics (changelog TTL cleanup) not found",
		Why:          "optional; needs ADMIN or OPERATOR (ShowBackendsCommand)"},
	{Source: snapshot.SourceShowData, Severity: diag.SeverityWarning,
		NotDiagnosed: "changelog size not diagnosed",
		Why:          "optional: only the changelog size uses it; the form with no database needs ADMIN (ShowDataCommand.getAllDbStats)"},
	{Source: snapshot.SourceMetrics, Severity: diag.SeverityWarning,
		NotDiagnosed: "that node's /metrics: the exposition lint and changelog TTL cleanup not diagnosed for it",
		Why:          "optional: one node's metrics; the SQL diagnosis is complete without them"},
	{Source: "@@time_zone", Severity: diag.SeverityWarning,
		NotDiagnosed: "the session time zone: tasks()/jobs() times were read as UTC, so MV refresh ages may be off by the zone's offset",
		Why:          "the values are still read; only their zone is assumed"},
}

// Costs returns the table, in its documented order.
func Costs() []Cost { return append([]Cost(nil), sourceCosts...) }

// unknownSourceCost is the cost of a source this build does not know (a
// snapshot written by another version): critical, so that nothing passes a
// gate silently.
var unknownSourceCost = Cost{Severity: diag.SeverityCritical, NotDiagnosed: "what it holds", Why: "unknown source"}

func lookupSourceCost(source string) Cost {
	for _, c := range sourceCosts {
		if c.Source == source {
			return c
		}
	}
	c := unknownSourceCost
	c.Source = source
	return c
}

// gapSeverity is the severity of an unreadable, not superseded source.
func gapSeverity(c Cost, mvs bool) diag.Severity {
	if mvs && c.IfMVs != 0 {
		return c.IfMVs
	}
	return c.Severity
}

// mvsKnown reports whether the snapshot shows that MVs exist: a job, an
// MV row, a status or dependency row, or an IVM internal stream.
func mvsKnown(s *snapshot.Snapshot) bool {
	if len(s.MVs)+len(s.Jobs)+len(s.MVStatus)+len(s.Dependencies) > 0 {
		return true
	}
	for _, t := range s.Tasks {
		if t.MVID != 0 || t.MVName != "" {
			return true
		}
	}
	for _, st := range s.Streams {
		if st.IsInternal() {
			return true
		}
	}
	return false
}
