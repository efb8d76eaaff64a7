package diag

import "sort"

// Grouping: a symptom is listed under its cause (issue 13, "Group symptoms
// under their cause"), in every format: SortFindings places each symptom
// right after its cause and links the two (Finding.Cause, Finding.Symptoms).
// The rules use what diag already knows about causes — an MV's lagging
// reason, a failure reason, the MV an internal stream belongs to — carried in
// each finding's evidence; a finding whose cause is not in the same list (a
// config ignore removed it, or the command shows one area) stands alone.

// symptomRule says where the cause of one code is: the candidate cause codes,
// in order of preference, on the object named by the finding itself or by one
// of its evidence values.
type symptomRule struct {
	symptom Code
	// causes returns the candidate cause codes and the object (kind,
	// "db.name" label) they must be about; nil when f has no cause here.
	causes func(f *Finding) (codes []Code, kind, label string)
}

// mvDelayCauses maps an MV's lagging reason (apache/doris#69907, "Lagging
// reason") to the findings that explain it.
var mvDelayCauses = map[string][]Code{
	ReasonRefreshFailed:   {CodeMVChangelogBroken, CodeMVConsecutiveFailures},
	ReasonRebuildRequired: {CodeMVRebuildRequired},
	ReasonJobPaused:       {CodeMVJobPaused},
	ReasonQueued:          {CodeMVTaskQueuedLong},
	ReasonRunning:         {CodeMVTaskStuckRunning},
}

// streamLoss are the findings that explain a user stream's pending age and
// shrinking headroom: its consumer stopped reading, and changes are lost.
var streamLoss = []Code{CodeStreamCannotResumeClipped, CodeStreamCannotResumeRejected, CodeStreamNoOffsetRowsSkipped}

var symptomRules = []symptomRule{
	{CodeMVDelayHigh, func(f *Finding) ([]Code, string, string) {
		return mvDelayCauses[f.Evidence["lagging_reason"]], "mv", f.Object.label()
	}},
	{CodeMVConsecutiveFailures, func(f *Finding) ([]Code, string, string) {
		if f.Evidence["failure_reason"] != "CHANGELOG_BROKEN" {
			return nil, "", ""
		}
		return []Code{CodeMVChangelogBroken}, "mv", f.Object.label()
	}},
	{CodeIVMStreamRecomputeOnly, func(f *Finding) ([]Code, string, string) {
		mv := f.Evidence["mv"]
		if mv == "" {
			return nil, "", ""
		}
		return []Code{CodeMVChangelogBroken, CodeMVNextRefreshRecomputes}, "mv", mv
	}},
	{CodeStreamPendingAgeHigh, func(f *Finding) ([]Code, string, string) {
		return append(streamLoss[:len(streamLoss):len(streamLoss)], CodeStreamHeadroomLow), "stream", f.Object.label()
	}},
	{CodeStreamHeadroomLow, func(f *Finding) ([]Code, string, string) { return streamLoss, "stream", f.Object.label() }},
	{CodeStreamStale, func(f *Finding) ([]Code, string, string) {
		return []Code{CodeStreamBaseTableDropped}, "stream", f.Object.label()
	}},
}

// label is "db.name", the key grouping matches objects by.
func (o Object) label() string { return o.DB + "." + o.Name }

// groupKind folds a partition finding into its stream.
func groupKind(o Object) string {
	if o.Kind == "partition" {
		return "stream"
	}
	return o.Kind
}

// SortFindings orders findings worst first (impact.go: impact class,
// severity, code rank, magnitude) and places every symptom right after its
// cause, setting Cause and Symptoms. A group takes the place of its most
// urgent member. The order is deterministic.
func SortFindings(fs []Finding) {
	for i := range fs {
		fs[i].Cause, fs[i].Symptoms = nil, nil
	}
	sort.SliceStable(fs, func(i, j int) bool { return worse(&fs[i], &fs[j]) })

	type objCode struct{ kind, label, code string }
	first := make(map[objCode]int, len(fs))
	for i := range fs {
		k := objCode{groupKind(fs[i].Object), fs[i].Object.label(), fs[i].Code.String()}
		if _, ok := first[k]; !ok {
			first[k] = i
		}
	}
	rules := make(map[string]symptomRule, len(symptomRules))
	for _, r := range symptomRules {
		rules[r.symptom.String()] = r
	}
	cause := make([]int, len(fs))
	for i := range fs {
		cause[i] = -1
		r, ok := rules[fs[i].Code.String()]
		if !ok {
			continue
		}
		codes, kind, label := r.causes(&fs[i])
		for _, c := range codes {
			if j, ok := first[objCode{kind, label, c.String()}]; ok && j != i {
				cause[i] = j
				break
			}
		}
	}
	// A cause that is itself a symptom hands its symptoms to its own root:
	// one level of grouping (bounded walk: a cycle stops at len(fs) steps).
	root := func(i int) int {
		for n := 0; cause[i] >= 0 && n < len(fs); n++ {
			i = cause[i]
		}
		return i
	}
	roots := make([]int, len(fs))
	for i := range fs {
		roots[i] = root(i)
		if roots[i] == i {
			cause[i] = -1
		}
	}
	// Groups in the order of their earliest (most urgent) member.
	var order []int
	members := make(map[int][]int, len(fs))
	for i := range fs {
		r := roots[i]
		if _, seen := members[r]; !seen {
			order = append(order, r)
		}
		if r != i {
			members[r] = append(members[r], i)
		} else if members[r] == nil {
			members[r] = []int{}
		}
	}
	out := make([]Finding, 0, len(fs))
	for _, r := range order {
		c := fs[r]
		for _, s := range members[r] {
			c.Symptoms = append(c.Symptoms, FindingRef{Code: fs[s].Code, Object: fs[s].Object})
		}
		out = append(out, c)
		for _, s := range members[r] {
			f := fs[s]
			f.Cause = &FindingRef{Code: fs[r].Code, Object: fs[r].Object}
			out = append(out, f)
		}
	}
	copy(fs, out)
}
