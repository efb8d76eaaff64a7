package doris

import (
	"strings"
	"testing"
)

// The suggested statements read as a person types them, and a hostile name
// stays one identifier or one literal.
func TestSuggestedStatements(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{SuggestStreamOffsets(7, false), "SELECT UNIT, CONSUMPTION_STATUS, `LAG`, LAST_CONSUMPTION_TIME FROM information_schema.table_stream_consumption WHERE STREAM_ID = 7;"},
		{SuggestStreamOffsets(7, true), "SELECT UNIT, CONSUMED_TSO, SOURCE_END_TSO, PENDING_AGE_SECONDS, PENDING_AGE_PRECISION, CAN_RESUME, RETENTION_HEADROOM_SECONDS, LAST_GAP_TIME FROM information_schema.table_stream_consumption WHERE STREAM_ID = 7 ORDER BY PENDING_AGE_SECONDS DESC LIMIT 20;"},
		{SuggestStreamRow(7), "SELECT * FROM information_schema.table_streams WHERE STREAM_ID = 7;"},
		{SuggestStreamColumns(7, TableStreams.IsStale, TableStreams.StaleReason), "SELECT STREAM_NAME, IS_STALE, STALE_REASON FROM information_schema.table_streams WHERE STREAM_ID = 7;"},
		{SuggestStreamConsumptionRows(7), "SELECT * FROM information_schema.table_stream_consumption WHERE STREAM_ID = 7;"},
		{SuggestMonitorSampleTime(), "SELECT MAX(MONITOR_SAMPLE_TIME) FROM information_schema.table_streams;"},
		{SuggestMVTasks("d", "m", true), `SELECT TaskId, Status, RefreshMode, IvmRefreshMethod, IvmFallbackReason, DurationMs, ErrorMsg, LastQueryId FROM tasks("type" = "mv") WHERE MvDatabaseName = 'd' AND MvName = 'm' ORDER BY CreateTime DESC LIMIT 20;`},
		{SuggestTaskQueue(), `SELECT MvName, TaskId, Status, CreateTime FROM tasks("type" = "mv") WHERE Status IN ('PENDING', 'RUNNING') ORDER BY CreateTime;`},
		{SuggestMVInfo("d", "m"), "SELECT Name, State, RefreshState, RefreshInfo, SyncWithBaseTables FROM mv_infos('database' = 'd') WHERE Name = 'm';"},
		{SuggestMVStatus("d", "m", false), "SELECT DATA_DELAY_SECONDS, DELAY_PRECISION, SAMPLE_TIME FROM information_schema.ivm_mv_status WHERE DB_NAME = 'd' AND MV_NAME = 'm';"},
		{SuggestMVDependencies("d", "m"), "SELECT BASE_TABLE_DB, BASE_TABLE_NAME, IS_EXCLUDED_TRIGGER, DEPENDENCY_STATE, DELAY_SECONDS, LAGGING_PARTITIONS, WORST_PARTITION, STREAM_ID FROM information_schema.ivm_dependencies WHERE DB_NAME = 'd' AND MV_NAME = 'm' ORDER BY DELAY_SECONDS DESC;"},
		{SuggestInternalStreams("d", "m", []string{"m_x", "n"}, false), `SELECT STREAM_NAME, STREAM_ID, BASE_TABLE_NAME, ENABLED, IS_STALE FROM information_schema.table_streams WHERE DB_NAME = 'd' AND STREAM_NAME LIKE '\\_\\_doris\\_ivm\\_stream\\_m\\_%' AND STREAM_NAME NOT LIKE '\\_\\_doris\\_ivm\\_stream\\_m\\_x\\_%';`},
		{RefreshMV("d", "m`x", "AUTO"), "REFRESH MATERIALIZED VIEW `d`.`m``x` AUTO;"},
		{ShowQueryProfile("q'1"), `SHOW QUERY PROFILE '/q\'1';`},
		{CancelMVTask(5, "d", "m"), "CANCEL MATERIALIZED VIEW TASK 5 ON `d`.`m`;"},
		{ResetStream("d", "s"), "SELECT * FROM `d`.`s`@reset()"},
		{SetTableProperty("d", "t", "changelog.ttl_seconds"), "ALTER TABLE `d`.`t` SET (\"changelog.ttl_seconds\" = \"...\")"},
		{CopyPartition("d", "t", "p`1"), "INSERT ... SELECT ... FROM `d`.`t` PARTITION (`p``1`)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
	if s := SuggestMVStatus("d'; DROP DATABASE x; --", "m", true); !strings.Contains(s, `DB_NAME = 'd\'; DROP DATABASE x; --'`) {
		t.Errorf("hostile database name not one literal: %s", s)
	}
}

// hostileNames break out of a statement or a comment if written as they
// come: a backquote, a quote of each kind, a line feed, the end of a block
// comment, a semicolon, a backslash.
var hostileNames = []string{"m`x", "it's", `say "hi"`, "a\nDROP DATABASE prod;", "x */ DROP DATABASE prod; /*", "a; DROP DATABASE prod", `back\`, "-- c\r\n#"}

// unescape: the backslash escapes QuoteLiteral writes for control bytes.
var unescape = map[byte]byte{'n': '\n', 'r': '\r', '0': 0, 'Z': 0x1a}

// scanSQL reads a statement as Doris's lexer does: what is outside quotes,
// and the content of each quoted part with its escapes undone (a doubled
// quote is one; inside '...' and "..." a backslash escapes the next byte).
func scanSQL(t *testing.T, s string) (outside string, quoted []string) {
	t.Helper()
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\'' && c != '"' && c != '`' {
			out.WriteByte(c)
			continue
		}
		var q strings.Builder
		j := i + 1
		for ; j < len(s); j++ {
			if s[j] == '\\' && c != '`' && j+1 < len(s) {
				j++
				if b, ok := unescape[s[j]]; ok {
					q.WriteByte(b)
				} else {
					q.WriteByte(s[j])
				}
				continue
			}
			if s[j] == c {
				if j+1 < len(s) && s[j+1] == c {
					q.WriteByte(c)
					j++
					continue
				}
				break
			}
			q.WriteByte(s[j])
		}
		if j >= len(s) {
			t.Fatalf("unclosed %c in %q", c, s)
		}
		quoted = append(quoted, q.String())
		out.WriteString("?")
		i = j
	}
	return out.String(), quoted
}

// TestTemplatesKeepHostileNames: each template of issue 19 item 5 writes a
// hostile name as one quoted part that reads back as the name, and nothing
// of the name outside quotes: no line break, no ';' before the end, no
// comment.
func TestTemplatesKeepHostileNames(t *testing.T) {
	for _, name := range hostileNames {
		for _, tc := range []struct {
			stmt  string
			parts []string // the quoted parts, in order, as read back
		}{
			{AlterMVSchedule(name, name, 42600), []string{name, name}},
			{AlterMVSchedule("d", name, 60), []string{"d", name}},
			{SetFrontendConfig(name, name), []string{name, name}},
			{SetTableProperty(name, name, name), []string{name, name, name, "..."}},
			{SetTablePropertyOfSome(name), []string{name, "..."}},
			{RefreshMV(name, name, "AUTO"), []string{name, name}},
		} {
			outside, parts := scanSQL(t, tc.stmt)
			if strings.Join(parts, "\x00") != strings.Join(tc.parts, "\x00") {
				t.Errorf("%q: quoted parts %q, want %q", tc.stmt, parts, tc.parts)
			}
			body := strings.TrimSuffix(outside, ";")
			for _, bad := range []string{"\n", "\r", ";", "--", "/*", "*/", "#"} {
				if strings.Contains(body, bad) {
					t.Errorf("%q: %q outside quotes (%q)", tc.stmt, bad, outside)
				}
			}
		}
		if g := GrantGlobal(name); g != "GRANT <privilege>_PRIV ON *.*.* TO USER" {
			t.Errorf("GrantGlobal(%q) = %q: a privilege that is not a known name is a placeholder", name, g)
		}
		if c := Note(SetFrontendConfig("k", "1"), "for "+name); strings.Count(c, "\n") != 0 {
			t.Errorf("a note with %q breaks its line: %q", name, c)
		}
	}
}

// The templates of issue 19 item 5 write what the findings printed before
// them, where the old text was quoted.
func TestActionTemplates(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{SetFrontendConfig("streaming_label_keep_max_second", "3600"), `ADMIN SET FRONTEND CONFIG ("streaming_label_keep_max_second" = "3600");`},
		{SetFrontendConfig("enable_ivm_stream_keepalive", "true"), `ADMIN SET FRONTEND CONFIG ("enable_ivm_stream_keepalive" = "true");`},
		{SetFrontendConfig(`k"1`, "a'b\nc"), `ADMIN SET FRONTEND CONFIG ("k\"1" = "a\'b\nc");`},
		{AlterMVSchedule("demo", "mv_orders", 21300), "ALTER MATERIALIZED VIEW `demo`.`mv_orders` REFRESH ON SCHEDULE EVERY 21300 SECOND;"},
		{AlterMVSchedule("select", "m`x", 60), "ALTER MATERIALIZED VIEW `select`.`m``x` REFRESH ON SCHEDULE EVERY 60 SECOND;"},
		{SetTablePropertyOfSome("changelog.ttl_seconds"), `ALTER TABLE <db>.<table> SET ("changelog.ttl_seconds" = "...")`},
		{GrantGlobal("ADMIN"), "GRANT ADMIN_PRIV ON *.*.* TO USER"},
		{GrantGlobal("Node_priv"), "GRANT NODE_PRIV ON *.*.* TO USER"},
		{GrantGlobal("unknown"), "GRANT <privilege>_PRIV ON *.*.* TO USER"},
		{GrantGlobal("ADMIN/NODE"), "GRANT <privilege>_PRIV ON *.*.* TO USER"},
		{GrantGlobal("ADMIN or NODE"), "GRANT ADMIN_PRIV ON *.*.* TO USER"}, // the doctor's gap for the FE's HTTP config
		{GrantGlobal("ADMIN or DROP TABLE"), "GRANT <privilege>_PRIV ON *.*.* TO USER"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
}
