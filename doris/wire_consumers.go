package doris

// The offset table of an external consumer (issue 23, docs/consumers.md):
// a user table, not a system one. The Flink Doris connector
// (apache/doris-flink-connector@79ae9b03,
// flink-doris-connector-base/.../source/reader/DorisOffsetPublisher.java)
// appends one row after each completed checkpoint, from subtask 0 only:
//
//	INSERT INTO `db`.`tbl` (`consumer_id`, `offset_timestamp`, `update_time`) VALUES (?, ?, CURRENT_TIMESTAMP(3))
//
// It never creates the table (a UNIQUE KEY(consumer_id) table keeps one row
// per consumer, a DUPLICATE table its history) and never reads it back.
// offset_timestamp is FROM_UNIXTIME(<ms>/1000, '%Y-%m-%d %H:%i:%s') of the
// FE's /api/tso physical time (rest/RestService.java), so second precision
// in the session time zone of the connector's JDBC connection; update_time
// is CURRENT_TIMESTAMP(3) in the same zone. MAX over the consumer's rows is
// its newest position whatever the key model.

// SourceOffsetTable is the source name of the offset-table reads.
const SourceOffsetTable = "offset table"

// OffsetTableRel is an external consumer's offset table.
type OffsetTableRel struct {
	Relation
	ConsumerID, OffsetTimestamp, UpdateTime Column
}

// OffsetTable is read once per declared consumer.
var OffsetTable = &OffsetTableRel{
	Relation: Relation{Source: SourceOffsetTable, Kind: UserTable, Name: "<offset_table>",
		Mirrors: "apache/doris-flink-connector@79ae9b03 DorisOffsetPublisher.java (INSERT INTO `db`.`tbl` (`consumer_id`, `offset_timestamp`, `update_time`) VALUES (?, ?, CURRENT_TIMESTAMP(3))); DorisConfigOptions.java source.binlog.offset-table, source.binlog.consumer-id",
		Statements: []Statement{{
			Template: "SELECT `consumer_id`, MAX(`offset_timestamp`) AS `offset_timestamp`, MAX(`update_time`) AS `update_time` FROM {db}.{table} WHERE `consumer_id` = {literal} GROUP BY `consumer_id`",
			When:     "once per consumer declared in the config file (consumers:); works for a UNIQUE KEY(consumer_id) and a DUPLICATE offset table"}},
		Note: "a user table the connector appends to; zone-less datetime text in the connector's session time zone; the column names are the connector's, the aliases the statement's own"},
	ConsumerID:      Column{Name: "consumer_id", Type: VARCHAR, Format: Text, Read: true, Note: "source.binlog.consumer-id"},
	OffsetTimestamp: Column{Name: "offset_timestamp", Type: VARCHAR, Format: Text, Read: true, Note: "'yyyy-MM-dd HH:mm:ss' (second precision), the connector's session time zone: the end of the last stream split subtask 0 finished"},
	UpdateTime:      Column{Name: "update_time", Type: VARCHAR, Format: Text, Read: true, Note: "CURRENT_TIMESTAMP(3) of the publication, the connector's session time zone"},
}

func init() { register(OffsetTable) }
