package diag

import "github.com/dorisdiag/dorisdiag/snapshot"

// Test builders write raw Doris text the way a collector reads it; a real
// snapshot is always normalised before diag sees it (snapshot.Validate). These
// helpers do the same for in-memory test snapshots.

// refreshOf is mv_infos().RefreshInfo parsed, as snapshot.Normalize does.
func refreshOf(s string) RefreshInfo {
	r, _ := snapshot.ParseRefreshInfo(s)
	return r
}

// norm normalises a test snapshot (idempotent) and returns it.
func norm(s *snapshot.Snapshot) *snapshot.Snapshot {
	if s != nil {
		s.Normalize()
	}
	return s
}

// normAll normalises a series.
func normAll(series []*snapshot.Snapshot) []*snapshot.Snapshot {
	for _, s := range series {
		norm(s)
	}
	return series
}

// normTask normalises one test task as snapshot.Normalize does.
func normTask(t snapshot.Task) snapshot.Task {
	s := snapshot.Snapshot{Tasks: []snapshot.Task{t}}
	s.Normalize()
	return s.Tasks[0]
}

func normTasks(ts []snapshot.Task) []snapshot.Task {
	out := make([]snapshot.Task, len(ts))
	for i, t := range ts {
		out[i] = normTask(t)
	}
	return out
}
