package doctor

import (
	"fmt"
	"strconv"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
)

// Stream Load labels: how long the Master keeps a finished one (the window a
// sink's idempotent replay can rely on), and what a label's state means.
// Doris removes final transactions after streaming_label_keep_max_second, and
// per database beyond label_num_threshold oldest first whatever their age
// (DatabaseTransactionMgr.unprotectedRemoveUselessTxns): a removed label
// reads UNKNOWN, like one never loaded, and can be loaded again.

// labelWindow is the Master's label retention: seconds and count, each with
// whether it was read (else the declared default).
type labelWindow struct {
	keep, count         int64
	keepRead, countRead bool
	note                string
}

func (r *run) labelWindow() labelWindow {
	w := labelWindow{}
	w.keep, _ = strconv.ParseInt(keyDefault(doris.FE, "streaming_label_keep_max_second"), 10, 64)
	w.count, _ = strconv.ParseInt(keyDefault(doris.FE, "label_num_threshold"), 10, 64)
	if s, note := r.masterSetting("streaming_label_keep_max_second"); s.known() {
		if v, ok := s.int(); ok {
			w.keep, w.keepRead, w.note = v, true, note
		}
	}
	if s, _ := r.masterSetting("label_num_threshold"); s.known() {
		if v, ok := s.int(); ok {
			w.count, w.countRead = v, true
		}
	}
	return w
}

// text is "43200 s (12h) and at most 2000 finished per database".
func (w labelWindow) text() string {
	t := duration(w.keep)
	if !w.keepRead {
		t += " (default; not read)"
	}
	if w.count > 0 {
		t += fmt.Sprintf(", and at most %d finished transactions per database whatever their age (label_num_threshold", w.count)
		if !w.countRead {
			t += ", default; not read"
		}
		t += ")"
	}
	return t
}

// CodeLabelWindowShort: labels are removed before a sink's replay window ends.
var CodeLabelWindowShort = diag.Declare(diag.Declaration{
	Code: "CONFIG_LABEL_WINDOW_SHORT", Severity: diag.SeverityCritical,
	Action: "raise streaming_label_keep_max_second",
	Impact: diag.ImpactLoss, Place: 9,
	Title: "Stream Load labels are removed before the sink's replay window ends (--replay-window)",
	Spec:  "Doris Config.java streaming_label_keep_max_second (43200), label_num_threshold (2000); DatabaseTransactionMgr.unprotectedRemoveUselessTxns",
	Meaning: "streaming_label_keep_max_second is shorter than the age at which a sink may replay a load (--replay-window). " +
		"A finished label is removed after that many seconds, and per database beyond label_num_threshold finished transactions whatever their age.",
	Matters: "A replay of a load whose label was removed is not refused as a duplicate: it loads twice.",
	Confirm: "SHOW FRONTEND CONFIG LIKE '%label%';  curl -u USER 'http://FE:8030/api/DB/get_load_state?label=LABEL'",
	Fix:     "ADMIN SET FRONTEND CONFIG (\"streaming_label_keep_max_second\" = \"<at least the replay window>\") on the Master (mutable; master-only), and keep label_num_threshold above a window's loads per database.",
	Related: []string{"LABEL_UNKNOWN"},
})

func ruleLabelWindow(r *run, _ facts) {
	m, _ := r.master()
	if m == nil {
		return
	}
	g, key := group(m), "streaming_label_keep_max_second"
	w := r.labelWindow()
	if !w.keepRead {
		r.unknown(g, key, "not read from "+m.Source, "")
		return
	}
	replay := int64(r.o.ReplayWindow.Seconds())
	switch {
	case replay <= 0:
		r.info(g, key, "finished labels kept "+w.text()+w.note, "give --replay-window to judge it against a sink's replay age")
	case w.keep < replay:
		r.raise(g, key, finding(CodeLabelWindowShort, nodeObject(m),
			fmt.Sprintf("labels kept %s, shorter than the replay window %s: a replay older than that loads twice%s", duration(w.keep), duration(replay), w.note),
			"Finished labels are removed after streaming_label_keep_max_second (and beyond label_num_threshold per database); a removed label can be loaded again.",
			doris.SetFrontendConfig("streaming_label_keep_max_second", strconv.FormatInt(replay, 10)),
			map[string]string{key: strconv.FormatInt(w.keep, 10), "replay_window_seconds": strconv.FormatInt(replay, 10), "label_num_threshold": strconv.FormatInt(w.count, 10)}))
	default:
		s := fmt.Sprintf("labels kept %s, at least the replay window %s", duration(w.keep), duration(replay))
		if w.count > 0 {
			s += fmt.Sprintf("; but beyond %d finished transactions per database older labels go whatever their age", w.count)
		}
		r.pass(g, key, s)
	}
}

// CodeLabelUnknown: a label's state is UNKNOWN.
var CodeLabelUnknown = diag.Declare(diag.Declaration{
	Code: "LABEL_UNKNOWN", Severity: diag.SeverityWarning,
	Action: "replay only loads inside the label window",
	Impact: diag.ImpactVisibility, Place: 14,
	Title: "A Stream Load label reads UNKNOWN: never loaded, or already removed",
	Spec:  "Doris GetStreamLoadState (GET /api/{db}/get_load_state), DatabaseTransactionMgr.getLabelState, streaming_label_keep_max_second, label_num_threshold",
	Meaning: "No transaction of the database has this label: it was never loaded, or it finished and was removed after streaming_label_keep_max_second " +
		"or beyond label_num_threshold finished transactions in the database. Doris does not tell the two apart.",
	Matters: "A sink that replays this label loads it again: if it had been loaded and removed, the rows are loaded twice.",
	Confirm: "curl -u USER 'http://FE:8030/api/DB/get_load_state?label=LABEL'",
	Fix:     "Compare the load's age with the label window shown; replay only loads younger than it, or check the target table for the rows before replaying.",
	Related: []string{"CONFIG_LABEL_WINDOW_SHORT"},
})

func (r *run) labelChecks() {
	w := r.labelWindow()
	for _, l := range r.d.Labels {
		g, name := "labels", l.DB+"/"+l.Label
		switch l.State {
		case "":
			r.unknown(g, name, "not read: "+firstNonEmpty(l.Error, "no answer"), "")
		case "UNKNOWN":
			obj := diag.Object{Kind: "label", DB: l.DB, Name: l.Label}
			r.raise(g, name, finding(CodeLabelUnknown, obj,
				fmt.Sprintf("UNKNOWN: never loaded, or loaded and removed — finished labels are kept %s", w.text()),
				"Doris answers UNKNOWN both for a label no transaction has had and for one whose finished transaction was removed.",
				"replay it only if the load is younger than the label window, or check the target table first",
				map[string]string{"state": l.State, "streaming_label_keep_max_second": strconv.FormatInt(w.keep, 10), "label_num_threshold": strconv.FormatInt(w.count, 10)}))
		case "VISIBLE", "COMMITTED":
			r.pass(g, name, l.State+": loaded; a replay is refused as a duplicate while the label is kept")
		case "PREPARE", "PRECOMMITTED":
			r.info(g, name, l.State+": in progress", "")
		case "ABORTED":
			r.info(g, name, "ABORTED: the load failed; the label can be loaded again", "")
		default:
			r.info(g, name, l.State, "")
		}
	}
}
