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
