package doris

import (
	"strconv"
	"strings"
)

// Suggested statements: the SQL dorisdiag prints for a person to paste — a
// finding's next step, the lines of `mv explain` — and never sends. Each is
// written here, once, from the contract's relations and columns and with the
// one quoting (QuoteIdent, QuoteLiteral, LikeEscape): a renamed column fails
// to compile, and a hostile name stays one identifier or one literal. diag
// composes them into its advice; it spells no SQL of its own.

// query writes one SELECT of a relation for a person to read.
type query struct {
	b     strings.Builder
	where bool
}

// selectOf starts "SELECT cols FROM rel" (cols empty: "*"): an
// information_schema table by its schema, a metadata TVF with the argument
// that selects MVs.
func selectOf(r *Relation, cols ...Column) *query {
	from := "information_schema." + r.Name
	if r.Kind == TVF {
		from = r.Name + `("type" = "mv")`
	}
	return selectFrom(from, cols...)
}

// selectFrom starts "SELECT cols FROM from".
func selectFrom(from string, cols ...Column) *query {
	q := &query{}
	q.b.WriteString("SELECT ")
	if len(cols) == 0 {
		q.b.WriteString("*")
	}
	q.b.WriteString(ColumnList(cols...) + " FROM " + from)
	return q
}

// eq adds "AND col = value" (the first is "WHERE"); value is already quoted
// or a number.
func (q *query) eq(c Column, value string) *query {
	if q.where {
		q.b.WriteString(" AND ")
	} else {
		q.b.WriteString(" WHERE ")
		q.where = true
	}
	q.b.WriteString(ColumnList(c) + " = " + value)
	return q
}

// cond adds a condition written by the caller from quoted parts.
func (q *query) cond(c string) *query {
	if q.where {
		q.b.WriteString(" AND ")
	} else {
		q.b.WriteString(" WHERE ")
		q.where = true
	}
	q.b.WriteString(c)
	return q
}

// orderBy adds " ORDER BY col[ DESC]".
func (q *query) orderBy(c Column, desc bool) *query {
	q.b.WriteString(" ORDER BY " + ColumnList(c))
	if desc {
		q.b.WriteString(" DESC")
	}
	return q
}

func (q *query) limit(n int) *query {
	q.b.WriteString(" LIMIT " + strconv.Itoa(n))
	return q
}

// String ends the statement with ";".
func (q *query) String() string { return q.b.String() + ";" }

// reserved are the column names a person must backquote (LAG is a reserved
// word in MySQL 8 parsers).
var reserved = map[string]bool{"LAG": true}

// ColumnList writes column names as a person types them: bare, a reserved
// word backquoted.
func ColumnList(cols ...Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
		if reserved[strings.ToUpper(c.Name)] {
			names[i] = QuoteIdent(c.Name)
		}
	}
	return strings.Join(names, ", ")
}

// QuoteName is db.name with both parts backquoted.
func QuoteName(db, name string) string { return QuoteIdent(db) + "." + QuoteIdent(name) }

// SuggestStreamRow: the table_streams row of one stream.
func SuggestStreamRow(streamID int64) string {
	return selectOf(TableStreams.Rel()).eq(TableStreams.StreamID, id(streamID)).String()
}

// SuggestStreamColumns: some columns of one stream's table_streams row, after
// its name.
func SuggestStreamColumns(streamID int64, cols ...Column) string {
	return selectOf(TableStreams.Rel(), append([]Column{TableStreams.StreamName}, cols...)...).eq(TableStreams.StreamID, id(streamID)).String()
}

// SuggestMonitorSampleTime: the newest sample time of the FE monitor.
func SuggestMonitorSampleTime() string {
	return "SELECT MAX(" + ColumnList(TableStreams.MonitorSampleTime) + ") FROM information_schema." + TableStreams.Name + ";"
}

// SuggestStreamOffsets: a stream's offsets. With the monitoring design's
// columns (designColumns), its pending ages and headroom, worst first.
func SuggestStreamOffsets(streamID int64, designColumns bool) string {
	c := TableStreamConsumption
	if designColumns {
		return selectOf(c.Rel(), c.Unit, c.ConsumedTSO, c.SourceEndTSO, c.PendingAgeSeconds, c.PendingAgePrecision, c.CanResume, c.RetentionHeadroomSeconds, c.LastGapTime).
			eq(c.StreamID, id(streamID)).orderBy(c.PendingAgeSeconds, true).limit(20).String()
	}
	return selectOf(c.Rel(), c.Unit, c.ConsumptionStatus, c.Lag, c.LastConsumptionTime).eq(c.StreamID, id(streamID)).String()
}

// SuggestStreamConsumptionRows: every column of a stream's consumption rows.
func SuggestStreamConsumptionRows(streamID int64) string {
	return selectOf(TableStreamConsumption.Rel()).eq(TableStreamConsumption.StreamID, id(streamID)).String()
}

// SuggestInternalStreams: the internal streams of MV mv in db (others: the
// other MV names of db, IvmStreamsOf), with their base table's database when
// withDB.
func SuggestInternalStreams(db, mv string, others []string, withDB bool) string {
	t := TableStreams
	cols := []Column{t.StreamName, t.StreamID, t.BaseTableName, t.Enabled, t.IsStale}
	if withDB {
		cols = []Column{t.StreamName, t.StreamID, t.BaseTableDB, t.BaseTableName, t.Enabled, t.IsStale}
	}
	return selectOf(t.Rel(), cols...).cond(IvmStreamsOf(db, mv, others)).String()
}

// SuggestMVStatus: the server's status row of an MV; full adds the lagging
// reason and the failures, else only the delay and its precision.
func SuggestMVStatus(db, mv string, full bool) string {
	s := IVMMVStatus
	cols := []Column{s.DataDelaySeconds, s.DelayPrecision, s.SampleTime}
	if full {
		cols = []Column{s.DBName, s.MVName, s.FreshnessState, s.DataDelaySeconds, s.DelayPrecision, s.LaggingReason, s.ConsecutiveFailures, s.LastFailureReason, s.SampleTime}
	}
	return selectOf(s.Rel(), cols...).eq(s.DBName, QuoteLiteral(db)).eq(s.MVName, QuoteLiteral(mv)).String()
}

// SuggestMVDependencies: the server's dependency rows of an MV, most delayed first.
func SuggestMVDependencies(db, mv string) string {
	d := IVMDependencies
	return selectOf(d.Rel(), d.BaseTableDB, d.BaseTableName, d.IsExcludedTrigger, d.DependencyState, d.DelaySeconds, d.LaggingPartitions, d.WorstPartition, d.StreamID).
		eq(d.DBName, QuoteLiteral(db)).eq(d.MVName, QuoteLiteral(mv)).orderBy(d.DelaySeconds, true).String()
}

// SuggestMVInfo: an MV's mv_infos() row (the database as a single-quoted
// literal, as the collector sends it).
func SuggestMVInfo(db, mv string) string {
	m := MVInfos
	return selectFrom(m.Relation.Name+"('database' = "+QuoteLiteral(db)+")", m.Name, m.State, m.RefreshState, m.RefreshInfo, m.SyncWithBaseTables).
		eq(m.Name, QuoteLiteral(mv)).String()
}

// SuggestMVTasks: an MV's latest refresh tasks; withMethod names
// IvmRefreshMethod (builds that have it), else IvmRebuiltPartitions.
func SuggestMVTasks(db, mv string, withMethod bool) string {
	t := Tasks
	cols := []Column{t.TaskID, t.Status, t.RefreshMode, t.IvmFallbackReason, t.IvmRebuiltPartitions, t.DurationMs, t.ErrorMsg, t.LastQueryID}
	if withMethod {
		cols = []Column{t.TaskID, t.Status, t.RefreshMode, t.IvmRefreshMethod, t.IvmFallbackReason, t.DurationMs, t.ErrorMsg, t.LastQueryID}
	}
	return selectOf(t.Rel(), cols...).eq(t.MvDatabaseName, QuoteLiteral(db)).eq(t.MvName, QuoteLiteral(mv)).
		orderBy(t.CreateTime, true).limit(20).String()
}

// SuggestTaskQueue: the refresh tasks waiting or running, oldest first.
func SuggestTaskQueue() string {
	t := Tasks
	return selectOf(t.Rel(), t.MvName, t.TaskID, t.Status, t.CreateTime).
		cond(ColumnList(t.Status)+" IN ("+QuoteLiteral(string(TaskPending))+", "+QuoteLiteral(string(TaskRunning))+")").orderBy(t.CreateTime, false).String()
}

// The statements that act. They are never sent either: a person runs them
// after reading why.

// RefreshMV: REFRESH MATERIALIZED VIEW db.mv <mode>; mode is COMPLETE or AUTO.
func RefreshMV(db, mv, mode string) string {
	return "REFRESH MATERIALIZED VIEW " + QuoteName(db, mv) + " " + mode + ";"
}

// ResumeMVJob resumes an MV's paused refresh job.
func ResumeMVJob(db, mv string) string {
	return "RESUME MATERIALIZED VIEW JOB ON " + QuoteName(db, mv) + ";"
}

// CancelMVTask cancels one refresh task of an MV.
func CancelMVTask(taskID int64, db, mv string) string {
	return "CANCEL MATERIALIZED VIEW TASK " + id(taskID) + " ON " + QuoteName(db, mv) + ";"
}

// ShowQueryProfile: the profile of a query by its id.
func ShowQueryProfile(queryID string) string {
	return "SHOW QUERY PROFILE " + QuoteLiteral("/"+queryID) + ";"
}

// DropStream drops a stream (no ";": it is quoted inside advice too).
func DropStream(db, stream string) string { return "DROP STREAM " + QuoteName(db, stream) }

// RecoverTable brings a dropped table back from the recycle bin (a table
// dropped with FORCE is not there); its streams become readable again
// (regression suite mtmv_p0/ivm/test_ivm_drop_base_table_stream_state).
func RecoverTable(db, table string) string { return "RECOVER TABLE " + QuoteName(db, table) }

// ResetStream is the read that moves a stream's offset to now (no ";": it is
// quoted inside advice).
func ResetStream(db, stream string) string {
	return "SELECT * FROM " + QuoteName(db, stream) + "@reset()"
}

// SetTableProperty: ALTER TABLE db.table SET ("property" = "..."), the value
// left for the person to choose (no ";").
func SetTableProperty(db, table, property string) string {
	return setTableProperty(QuoteName(db, table), property)
}

// SetTablePropertyOfSome is SetTableProperty for a table whose name is not
// known as a database and a table (a consumer's source table written some
// other way): the name left as the placeholder <db>.<table>, never written
// unquoted.
func SetTablePropertyOfSome(property string) string {
	return setTableProperty("<db>.<table>", property)
}

func setTableProperty(table, property string) string {
	return "ALTER TABLE " + table + " SET (" + quoteDouble(property) + " = \"...\")"
}

// SetFrontendConfig: ADMIN SET FRONTEND CONFIG ("key" = "value"); — key and
// value each one double-quoted literal.
func SetFrontendConfig(key, value string) string {
	return "ADMIN SET FRONTEND CONFIG (" + quoteDouble(key) + " = " + quoteDouble(value) + ");"
}

// AlterMVSchedule puts an MV on a schedule of every seconds s:
// ALTER MATERIALIZED VIEW db.mv REFRESH ON SCHEDULE EVERY n SECOND;
func AlterMVSchedule(db, mv string, seconds int64) string {
	return "ALTER MATERIALIZED VIEW " + QuoteName(db, mv) + " REFRESH ON SCHEDULE EVERY " + id(seconds) + " SECOND;"
}

// globalPrivileges are the privileges GRANT ... ON *.*.* names, as Doris's
// access-denied error spells them (ADMIN, or Admin_priv).
var globalPrivileges = map[string]bool{"NODE": true, "ADMIN": true, "GRANT": true, "SELECT": true, "LOAD": true,
	"ALTER": true, "CREATE": true, "DROP": true, "USAGE": true, "SHOW_VIEW": true}

// GrantGlobal grants a privilege on everything to a user left as the
// placeholder USER (no ";"): GRANT ADMIN_PRIV ON *.*.* TO USER. privilege
// comes from the server's error text or a gap's "ADMIN or NODE": when it
// is known privilege names alone (ADMIN, admin_priv, "ADMIN or NODE") the
// first is granted; anything else ("unknown", hostile text) leaves the
// placeholder <privilege>_PRIV — the text is never written as it came.
func GrantGlobal(privilege string) string {
	p := ""
	for _, w := range strings.Fields(strings.ToUpper(privilege)) {
		w = strings.TrimSuffix(w, "_PRIV")
		switch {
		case w == "OR":
		case globalPrivileges[w]:
			if p == "" {
				p = w
			}
		default: // not a list of privilege names: nothing of it is written
			p = "<privilege>"
		}
	}
	if p == "" || strings.HasPrefix(p, "<") {
		p = "<privilege>"
	}
	return "GRANT " + p + "_PRIV ON *.*.* TO USER"
}

// CopyPartition is the read of a base partition to copy into a consumer (no
// ";": the INSERT target is the person's).
func CopyPartition(db, table, partition string) string {
	return "INSERT ... SELECT ... FROM " + QuoteName(db, table) + " PARTITION (" + QuoteIdent(partition) + ")"
}

// CopyPartitionsOf is CopyPartition with the partitions left to the person.
func CopyPartitionsOf(db, table string) string {
	return "INSERT ... SELECT ... FROM " + QuoteName(db, table) + " PARTITION (...)"
}

// CompareMV compares an MV with its query, the query left to the person.
func CompareMV(db, mv string) string {
	return "(SELECT * FROM " + QuoteName(db, mv) + ") EXCEPT (<the query of the MV>);"
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// Comments. A "-- " comment ends at the end of its line, and quotes mean
// nothing inside it: a line feed in a name written into a comment would put
// the rest of the name on a line of its own, where a MySQL client runs it
// (a name "x\nDROP DATABASE y;" became a statement). Every comment dorisdiag
// prints after or above a statement is written here, its text escaped by
// CommentText.

// Comment is a comment line: "-- " and note, escaped.
func Comment(note string) string { return "-- " + CommentText(note) }

// Note is a statement followed by a comment on its line: stmt, two spaces,
// Comment(note).
func Note(stmt, note string) string { return stmt + "  " + Comment(note) }

// CommentText escapes note for the inside of a "-- " comment: every control
// character and every character a terminal or an editor takes as a line
// break (U+0085, U+2028, U+2029) is written as a visible escape (\n, \r,
// \t, \xNN, \uNNNN), so the comment is one line whatever the names in it
// hold. A backslash stays as it is: it means nothing in a comment.
func CommentText(note string) string {
	clean := true
	for _, r := range note {
		if commentBreaks(r) {
			clean = false
			break
		}
	}
	if clean {
		return note
	}
	var b strings.Builder
	for _, r := range note {
		if !commentBreaks(r) {
			b.WriteRune(r)
			continue
		}
		switch r {
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x100 {
				b.WriteString(`\x` + strconv.FormatInt(int64(r)|0x100, 16)[1:])
			} else {
				b.WriteString(`\u` + strconv.FormatInt(int64(r)|0x10000, 16)[1:])
			}
		}
	}
	return b.String()
}

// commentBreaks: the characters CommentText escapes.
func commentBreaks(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029 || r == 0xfeff || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// CompareMVOver is the comment and the statement that compare an MV with its
// query over one base partition (the partition name backquoted in the
// comment, as a person types it).
func CompareMVOver(db, mv, partition string) string {
	return Comment("compare the MV with its query over base partition "+QuoteIdent(partition)+":") + "\n" + CompareMV(db, mv)
}
