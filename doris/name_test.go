package doris

import (
	"strings"
	"testing"
)

func TestParseName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ObjectName
	}{
		{"demo.mv_orders_daily", ObjectName{"demo", "mv_orders_daily", true}},
		{"mv_orders_daily", ObjectName{"", "mv_orders_daily", false}},
		{"`s.h.o.p`.`mv.x`", ObjectName{"s.h.o.p", "mv.x", true}},
		{"`a``b`.c", ObjectName{"a`b", "c", true}},
		{"````", ObjectName{"", "`", false}},
		{"``.x", ObjectName{"", "x", true}},
		{"shop.ev$(touch pwned)", ObjectName{"shop", "ev$(touch pwned)", true}},
		{"`line\nfeed`.x", ObjectName{"line\nfeed", "x", true}},
		{"my-db.x y", ObjectName{"my-db", "x y", true}},
		{"日本.表", ObjectName{"日本", "表", true}},
	} {
		got, err := ParseName(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseName(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "a.b.c", "db.", ".x", "`open", "a`b", "`a`b", "`a`.`b`c", "a..b"} {
		if got, err := ParseName(bad); err == nil {
			t.Errorf("ParseName(%q) = %+v, want an error", bad, got)
		} else if !strings.Contains(err.Error(), "`") && !strings.Contains(err.Error(), "DB.NAME") {
			t.Errorf("ParseName(%q): error %q does not say how to write it", bad, err)
		}
	}
}

func TestFormatName(t *testing.T) {
	for _, tc := range []struct{ db, name, want string }{
		{"demo", "mv_orders_daily", "demo.mv_orders_daily"},
		{"s.h.o.p", "mv.x", "`s.h.o.p`.`mv.x`"},
		{"a`b", "c", "`a``b`.c"},
		{"shop", "ev$x", "shop.ev$x"},
		{"shop", "ev$(touch pwned)", "shop.`ev$(touch pwned)`"},
		{"日本", "表", "日本.表"},
		{"", "x", "``.x"},
		{"d", "a\u202eb", "d.`a\u202eb`"},
	} {
		if got := FormatName(tc.db, tc.name); got != tc.want {
			t.Errorf("FormatName(%q, %q) = %q, want %q", tc.db, tc.name, got, tc.want)
		}
	}
}

// FuzzNameRoundTrip: whatever the two parts, ParseName reads back exactly
// what FormatName wrote (the property the printed commands rely on).
func FuzzNameRoundTrip(f *testing.F) {
	for _, s := range [][2]string{{"demo", "mv"}, {"s.h.o.p", "mv.x"}, {"a`b", "``"}, {"", ""}, {"x\ny", "$(touch x)"}, {"\xff", "é"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, db, name string) {
		got, err := ParseName(FormatName(db, name))
		if err != nil || got.DB != db || got.Name != name || !got.Qualified {
			t.Fatalf("ParseName(FormatName(%q, %q)) = %+v, %v", db, name, got, err)
		}
		if p, err := ParseName(FormatPart(name)); err != nil || p.Name != name || p.Qualified {
			t.Fatalf("ParseName(FormatPart(%q)) = %+v, %v", name, p, err)
		}
	})
}

func TestLikeEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"o_s%", `o\_s\%`},
		{`a\b`, `a\\b`},
		{"a.b(c)$", "a.b(c)$"},
		{"__doris_ivm_stream_", `\_\_doris\_ivm\_stream\_`},
	} {
		if got := LikeEscape(tc.in); got != tc.want {
			t.Errorf("LikeEscape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, want := LikePrefix("o_s%\\"), `'o\\_s\\%\\\\%'`; got != want {
		t.Errorf("LikePrefix = %s, want %s", got, want)
	}
}
