package scenarios

import (
	"time"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The external consumers of the scenarios (docs/consumers.md): Flink Doris
// connector jobs publishing to ops.flink_offsets, as a live collection with
// their consumers: entries would record them. Each offset is the text the
// connector wrote, in its session's zone.

func consumerText(ago time.Duration, zone string) string {
	loc, ok := snapshot.ParseTimeZone(zone)
	if !ok {
		panic("scenarios: zone " + zone)
	}
	return ClusterTime.Add(-ago).In(loc).Format("2006-01-02 15:04:05")
}

func flinkConsumer(name, id, table, inc, zone string, offAgo, pubAgo time.Duration) snapshot.ExternalConsumer {
	return snapshot.ExternalConsumer{Name: name, OffsetTable: "ops.flink_offsets", ConsumerID: id, SourceTable: db + "." + table,
		IncrementType: inc, TimeZone: zone,
		Query: "SELECT `consumer_id`, MAX(`offset_timestamp`) AS `offset_timestamp`, MAX(`update_time`) AS `update_time` FROM `ops`.`flink_offsets` WHERE `consumer_id` = '" + id + "' GROUP BY `consumer_id`",
		Read:  true, Found: true, OffsetTimestamp: consumerText(offAgo, zone), UpdateTime: consumerText(pubAgo, zone) + ".412"}
}

// incidentConsumers: a min_delta job down for 25 h (its offset expired: a
// restart is rejected), a detail job whose publication has failed for
// 24 h 20 m (a restart silently skips 20 min), and a healthy one whose
// connector writes Shanghai wall-clock time.
func incidentConsumers() []snapshot.ExternalConsumer {
	return []snapshot.ExternalConsumer{
		flinkConsumer("cdc-orders-flink", "cdc-orders", "orders", snapshot.IncrementMinDelta, "UTC", 25*h+12*s, 25*h),
		flinkConsumer("ledger-payments-flink", "ledger-payments", "payments", snapshot.IncrementDetail, "UTC", 24*h+20*m+30*s, 24*h+20*m),
		flinkConsumer("search-items-flink", "search-items", "order_items", snapshot.IncrementDetail, "Asia/Shanghai", 40*s, 30*s),
	}
}

// healthyConsumers: one job, current.
func healthyConsumers() []snapshot.ExternalConsumer {
	return []snapshot.ExternalConsumer{
		flinkConsumer("search-items-flink", "search-items", "order_items", snapshot.IncrementDetail, "Asia/Shanghai", 40*s, 30*s),
	}
}
