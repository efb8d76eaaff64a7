package doris

import (
	"strconv"
	"strings"
)

// The name of an IVM MV's internal stream: the one rule that recognises it,
// used by the collector, diag, the scenarios and the fixtures alike.
//
// Doris names the stream it creates for each base table of an IVM MV
// `__doris_ivm_stream_<mv name>_<mv id base36>_<base table id base36>`
// (doris.md §3: detect by the prefix only); older builds wrote
// `__doris_ivm_stream_<mv id>_<base table id>` in decimal, with no MV name.
// A stream is internal by this prefix alone: the ids after it are read when
// they can be, never required.

// IvmStreamPrefix starts the name of every IVM internal stream.
const IvmStreamPrefix = "__doris_ivm_stream_"

// IsIvmStreamName reports whether a stream name is an IVM internal stream's.
func IsIvmStreamName(name string) bool { return strings.HasPrefix(name, IvmStreamPrefix) }

// IvmStreamName is the internal stream's name of MV mvName (id mvID) on the
// base table with id tableID, as current builds write it.
func IvmStreamName(mvName string, mvID, tableID int64) string {
	return IvmStreamPrefix + mvName + "_" + strconv.FormatInt(mvID, 36) + "_" + strconv.FormatInt(tableID, 36)
}

// ParseIvmStreamName reads an internal stream's name. For the older decimal
// form, mvName is "" and baseTableID is parsed when the next part is decimal
// too (else 0). ok is false when name lacks the prefix. A name with the prefix
// whose ids cannot be read is still ok (it is an internal stream) with the
// ids 0.
func ParseIvmStreamName(name string) (mvName string, mvID int64, baseTableID int64, ok bool) {
	rest, ok := strings.CutPrefix(name, IvmStreamPrefix)
	if !ok {
		return "", 0, 0, false
	}
	parts := strings.Split(rest, "_")
	if len(parts) >= 3 {
		mid, err1 := parseBase36(parts[len(parts)-2])
		bid, err2 := parseBase36(parts[len(parts)-1])
		n := strings.Join(parts[:len(parts)-2], "_")
		if err1 == nil && err2 == nil && n != "" && !allDigits(parts) {
			return n, mid, bid, true
		}
	}
	// Older builds: __doris_ivm_stream_<digits>_...
	if len(parts) >= 1 && isDigits(parts[0]) {
		mid, _ := strconv.ParseInt(parts[0], 10, 64)
		var bid int64
		if len(parts) >= 2 && isDigits(parts[1]) {
			bid, _ = strconv.ParseInt(parts[1], 10, 64)
		}
		return "", mid, bid, true
	}
	return "", 0, 0, true
}

// IvmStreamsOf is the condition on information_schema.table_streams that
// selects the internal streams of MV mv in database db by name, with the LIKE
// wildcards of the name escaped. The prefix "<mv>_" alone would also match
// the streams of an MV named "<mv>_<more>", so each such MV of the same
// database in others is excluded by its own prefix (a base36 part has no
// '_', so no stream of mv starts with another's).
func IvmStreamsOf(db, mv string, others []string) string {
	c := TableStreams
	w := c.DBName.Name + " = " + QuoteLiteral(db) + " AND " + c.StreamName.Name + " LIKE " + LikePrefix(IvmStreamPrefix+mv+"_")
	for _, o := range others {
		if o != mv && strings.HasPrefix(o, mv+"_") {
			w += " AND " + c.StreamName.Name + " NOT LIKE " + LikePrefix(IvmStreamPrefix+o+"_")
		}
	}
	return w
}

func parseBase36(s string) (int64, error) {
	if s == "" {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseInt(strings.ToLower(s), 36, 64)
}

// allDigits: every part decimal — an older-build name, not <name>_<b36>_<b36>.
func allDigits(parts []string) bool {
	for _, p := range parts {
		if !isDigits(p) {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
