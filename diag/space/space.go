package space

import (
	"sort"

	"github.com/dorisdiag/dorisdiag/diag/metrics"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The changelog's space (apache/doris#69907 §1 S5): how much changelog the
// base tables keep, from SHOW DATA, and whether the BEs' TTL cleanup works,
// from their /metrics.

// Overview is S5: how much changelog is kept and whether TTL cleanup works.
type Overview struct {
	ChangelogBytes *int64 `json:"changelog_bytes,omitempty"` // sum of SHOW DATA BinlogSize over the tables that report it
	TablesWithSize int    `json:"tables_with_size"`
	Tables         int    `json:"tables"`
	// TableSizes is each base table's changelog size (SHOW DATA BinlogSize),
	// largest first; Approximate when SHOW DATA printed it rounded ("1.500 MB").
	TableSizes []TableSize `json:"table_sizes,omitempty"`
	// DatabaseSizes is each base-table database's BinlogSize, when a
	// per-database form of SHOW DATA answered; largest first.
	DatabaseSizes []DatabaseSize `json:"database_sizes,omitempty"`
	// From /metrics, when payloads were fetched.
	RetainedBytes              *float64 `json:"retained_bytes,omitempty"`
	TTLCleanupFailed           *float64 `json:"ttl_cleanup_failed,omitempty"`
	TTLCleanupSucceeded        *float64 `json:"ttl_cleanup_succeeded,omitempty"`
	TTLLastSuccessAgeSeconds   *float64 `json:"ttl_last_success_age_seconds,omitempty"`
	TTLReclaimedBytes          *float64 `json:"ttl_reclaimed_bytes,omitempty"`
	MetricsPayloads            int      `json:"metrics_payloads"`
	MetricsPayloadsUnparseable int      `json:"metrics_payloads_unparseable"`
	MetricsPayloadsNotFetched  int      `json:"metrics_payloads_not_fetched"`
	MetricsStyleProblems       int      `json:"metrics_style_problems"`
}

// TableSize is one base table's changelog size.
type TableSize struct {
	Object      string `json:"object"` // db.table
	Bytes       int64  `json:"bytes"`
	Approximate bool   `json:"approximate,omitempty"`
}

// DatabaseSize is one database's changelog size.
type DatabaseSize struct {
	DB    string `json:"db"`
	Bytes int64  `json:"bytes"`
}

// Summarize is S5 for one snapshot: the sizes SHOW DATA reported,
// largest first, and the /metrics signals of the payloads analysed (m may
// be nil).
func Summarize(last *snapshot.Snapshot, m *metrics.Result) Overview {
	var o Overview
	o.Tables = len(last.Tables)
	for _, t := range last.Tables {
		if t.ChangelogSizeBytes != nil {
			if o.ChangelogBytes == nil {
				o.ChangelogBytes = new(int64)
			}
			*o.ChangelogBytes += *t.ChangelogSizeBytes
			o.TablesWithSize++
			o.TableSizes = append(o.TableSizes, TableSize{Object: t.DB + "." + t.Name,
				Bytes: *t.ChangelogSizeBytes, Approximate: t.ChangelogSizeText != ""})
		}
	}
	for _, d := range last.Databases {
		if d.BinlogSizeBytes != nil {
			o.DatabaseSizes = append(o.DatabaseSizes, DatabaseSize{DB: d.DB, Bytes: *d.BinlogSizeBytes})
		}
	}
	sort.SliceStable(o.TableSizes, func(i, j int) bool {
		a, b := o.TableSizes[i], o.TableSizes[j]
		return a.Bytes > b.Bytes || a.Bytes == b.Bytes && a.Object < b.Object
	})
	sort.SliceStable(o.DatabaseSizes, func(i, j int) bool {
		a, b := o.DatabaseSizes[i], o.DatabaseSizes[j]
		return a.Bytes > b.Bytes || a.Bytes == b.Bytes && a.DB < b.DB
	})
	fromMetrics(&o, m)
	return o
}

// fromMetrics copies the S5 picture into the check overview.
func fromMetrics(o *Overview, r *metrics.Result) {
	if r == nil {
		return
	}
	o.MetricsPayloads = len(r.Payloads)
	o.MetricsPayloadsUnparseable = r.Unparseable
	o.MetricsPayloadsNotFetched = r.NotFetched
	o.MetricsStyleProblems = r.StyleProblems
	if v := r.S5.RetainedBytesSingleReplica; v != nil {
		o.RetainedBytes = v
	} else if v := r.S5.RetainedBytesAllReplicas; v != nil {
		o.RetainedBytes = v
	}
	o.TTLCleanupFailed = r.S5.TTLCleanupFailed
	o.TTLCleanupSucceeded = r.S5.TTLCleanupSuccess
	o.TTLReclaimedBytes = r.S5.TTLReclaimedBytes
	o.TTLLastSuccessAgeSeconds = r.TTLLastSuccessAgeSeconds
}
