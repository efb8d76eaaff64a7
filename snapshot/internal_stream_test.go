package snapshot

import "testing"

// An IVM MV's own stream is recognised by the wire contract's name rule or
// by the IVM_MV_ID column, whichever the build gives: doctor read the name
// only, so a stream carrying IVM_MV_ID under another name was a user's
// stream there and an MV's in `streams`.
func TestStreamIsInternal(t *testing.T) {
	id := int64(7)
	for _, c := range []struct {
		s    Stream
		want bool
	}{
		{Stream{Name: "s_orders"}, false},
		{Stream{Name: "__doris_ivm_stream_mv_ev_1a_rs"}, true},
		{Stream{Name: "__doris_ivm_stream_12_34"}, true},
		{Stream{Name: "s_orders", IvmMVID: &id}, true},
		{Stream{Name: "_doris_ivm_stream_x"}, false},
	} {
		if got := c.s.IsInternal(); got != c.want {
			t.Errorf("%+v: IsInternal() = %v, want %v", c.s, got, c.want)
		}
	}
}
