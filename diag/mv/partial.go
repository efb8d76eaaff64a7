package mv

import (
	"github.com/dorisdiag/dorisdiag/diag/streams"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// An MV list that mv_infos() could not give is still listed from the other
// sources that name MVs, their state unknown, with the reason (design.md
// "Partial failures"): never "no MVs".

// mvsNamedElsewhere returns the MVs that sources other than mv_infos() name
// (ivm_mv_status, jobs(), tasks(), the IVM internal streams), as MVInfo rows
// holding only the database, the name and the id, for an MV list that
// mv_infos() could not give. known holds the ids already listed.
func mvsNamedElsewhere(s *snapshot.Snapshot, sa *streams.Result, known map[int64]bool) []snapshot.MVInfo {
	var out []snapshot.MVInfo
	seen := map[string]bool{}
	add := func(db, name string, id int64) {
		k := tableKey(db, name)
		if name == "" || known[id] && id != 0 || seen[k] {
			return
		}
		seen[k] = true
		if id != 0 {
			known[id] = true
		}
		out = append(out, snapshot.MVInfo{DB: db, Name: name, ID: id})
	}
	for _, m := range s.MVStatus {
		add(m.DB, m.MVName, m.MVID)
	}
	for _, j := range s.Jobs {
		add(j.MVDatabaseName, j.MVName, j.MVID)
	}
	for _, t := range s.Tasks {
		add(t.MVDatabaseName, t.MVName, t.MVID)
	}
	if sa != nil {
		for _, sr := range sa.Streams {
			if sr.Kind == streams.KindIVM && sr.MVName != "" {
				var id int64
				if sr.MVID != nil {
					id = *sr.MVID
				}
				add(sr.DB, sr.MVName, id)
			}
		}
	}
	return out
}

// mvInfosUnreadableReason is the state reason of an MV when mv_infos()
// could not be read.
func mvInfosUnreadableReason(why string) string {
	return snapshot.SourceMVInfos + " could not be read (" + why + "): the MV's definition, refresh method and state are unknown"
}
