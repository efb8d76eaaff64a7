package collect

import (
	"context"
	"errors"
	"strings"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// maxConsumers bounds the offset-table reads of one collection (one
// statement per declared consumer; design.md "Bounded reads").
const maxConsumers = 200

// consumers reads, for every external consumer the config file declares,
// its newest published position: MAX(offset_timestamp) and
// MAX(update_time) of its consumer_id (one statement each; a UNIQUE or a
// DUPLICATE offset table alike). A failed read is recorded on the consumer
// (Error), never dropped; the source table's TTL comes from tables().
func (col *collector) consumers(ctx context.Context) {
	rel := doris.OffsetTable
	for i, ec := range col.cfg.Consumers {
		ec.Query, ec.Read, ec.Found, ec.OffsetTimestamp, ec.UpdateTime, ec.Error = "", false, false, "", "", ""
		if i >= maxConsumers {
			ec.Error = "not read: more than 200 consumers declared"
			col.snap.ExternalConsumers = append(col.snap.ExternalConsumers, ec)
			continue
		}
		db, tbl, ok := ec.OffsetTableParts()
		if !ok {
			ec.Error = "offset_table " + ec.OffsetTable + " is not db.table"
			col.snap.ExternalConsumers = append(col.snap.ExternalConsumers, ec)
			continue
		}
		q := rel.Statements[0].Build(doris.QuoteIdent(db), doris.QuoteIdent(tbl), doris.QuoteLiteral(ec.ConsumerID))
		ec.Query = q
		t, err := col.c.Query(ctx, q)
		if err != nil {
			ec.Error = err.Error()
			col.snap.ExternalConsumers = append(col.snap.ExternalConsumers, ec)
			continue
		}
		ec.Read = true
		switch {
		case len(t.Rows) > 1:
			ec.Read, ec.Error = false, "the statement answered more than one row (GROUP BY consumer_id)"
		case len(t.Rows) == 1:
			rr := col.reader(t, t.Rows[0], snapshot.SourceOffsetTable, ec.Name)
			ec.Found = true
			ec.OffsetTimestamp = nullText(rr.raw(rel.OffsetTimestamp))
			ec.UpdateTime = nullText(rr.raw(rel.UpdateTime))
			if !t.Has(rel.OffsetTimestamp.Name) {
				ec.Read, ec.Error = false, errors.New("the answer has no offset_timestamp column").Error()
			}
		}
		col.snap.ExternalConsumers = append(col.snap.ExternalConsumers, ec)
	}
}

func nullText(s string) string {
	if s == `\N` || strings.EqualFold(s, "NULL") {
		return ""
	}
	return s
}
