package streams

import (
	"math"
	"strconv"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/tso"
)

// How the stream findings write their numbers and names.

func worstHeadroom(ps []*Partition) *Partition {
	w := ps[0]
	for _, p := range ps[1:] {
		if HeadroomKey(p.HeadroomSeconds) < HeadroomKey(w.HeadroomSeconds) {
			w = p
		}
	}
	return w
}

func mvLabel(sr *Stream) string {
	switch {
	case sr.MVName != "":
		return sr.DB + "." + sr.MVName
	case sr.MVID != nil:
		return "id " + strconv.FormatInt(*sr.MVID, 10)
	}
	return "(unknown)"
}

func mvNameOr(sr *Stream) string {
	if sr.MVName != "" {
		return sr.MVName
	}
	return "<mv>"
}

func orMode(m string) string {
	if m == "" {
		return "MIN_DELTA (assumed)"
	}
	return m
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "…")
	}
	return s
}

func negate(v *float64) *float64 {
	if v == nil {
		return nil
	}
	return f64(-*v)
}

// fmtSecs renders seconds as a duration; "?" when unknown.
func fmtSecs(v *float64) string {
	if v == nil {
		return "?"
	}
	return tso.FormatDuration(int64(math.Round(*v * 1000)))
}

func fmtF(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

func tsoStr(t *tso.TSO) string {
	if t == nil {
		return ""
	}
	return t.String()
}

func floorStr(p *Partition) string {
	if p.Retention == nil {
		return ""
	}
	return p.Retention.RetentionFloorTSO.String()
}

func boundStr(v *diag.Value) string {
	switch {
	case v.Seconds == nil && v.Lower == nil:
		return "unknown"
	case v.Lower == nil:
		return "<= " + fmtF(v.Seconds)
	case v.Seconds == nil:
		return ">= " + fmtF(v.Lower)
	}
	return "[" + fmtF(v.Lower) + ", " + fmtF(v.Seconds) + "]"
}

func dataLower(p *Partition) *float64 {
	if p.DataAge == nil {
		return nil
	}
	return p.DataAge.Lower
}

func dataUpper(p *Partition) *float64 {
	if p.DataAge == nil {
		return nil
	}
	return p.DataAge.Seconds
}

// pendingText is a pending age with its bound: "3m00s, PRECISE",
// "at least 3h50m, no upper bound", "?".
func pendingText(v diag.Value) string {
	if v.Seconds == nil && v.Lower != nil {
		return "at least " + fmtSecs(v.Lower) + ", no upper bound"
	}
	return fmtSecs(v.Seconds) + ", " + string(v.Precision)
}
