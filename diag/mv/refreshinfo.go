package mv

import "github.com/dorisdiag/dorisdiag/snapshot"

// The Doris texts diag reads are parsed once, in the snapshot package, when
// the snapshot is built or loaded (snapshot.Normalize); diag reads only the
// typed fields. These aliases keep diag's result types' names.
type (
	// RefreshInfo is mv_infos().RefreshInfo parsed (snapshot.ParseRefreshInfo).
	RefreshInfo = snapshot.RefreshInfo
	// TableRef names a table "[ctl.][db.]name".
	TableRef = snapshot.TableRef
	// MvProperties is mv_infos().MvProperties parsed (snapshot.ParseMvProperties).
	MvProperties = snapshot.MvProperties
)
