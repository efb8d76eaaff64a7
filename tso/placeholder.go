package tso

// Placeholder until the tso package lands from its branch: the type only.
// DELETE THIS FILE when merging branch tso.

// TSO is a Doris TSO.
type TSO int64

// Physical is the physical part in Unix ms.
func (t TSO) Physical() int64 { return int64(t) >> 18 }
