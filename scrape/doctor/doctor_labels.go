package doctor

import (
	"github.com/dorisdiag/dorisdiag/scrape"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Stream Load labels. A CDC sink replays a window under the same label and
// relies on Doris refusing it ("Label Already Exists"); a label is removed
// after streaming_label_keep_max_second or once its database holds more
// than label_num_threshold finished transactions, and UNKNOWN is then the
// same answer as "never loaded". The state is asked of the Master (a
// follower redirects there, and a redirect carries no credentials).

// labels reads every label of o.Labels, at most o.LabelConcurrency at once.
func (r *doctorRun) labels(ctx context.Context) {
	addr := r.masterHTTP
	if addr == "" {
		addr = r.o.FEHTTPAddr(net.JoinHostPort(r.o.Host, strconv.Itoa(r.o.HTTPPort)))
	}
	out := make([]snapshot.LabelState, len(r.o.Labels))
	sem := make(chan struct{}, r.o.LabelConcurrency)
	var wg sync.WaitGroup
	for i, l := range r.o.Labels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = r.label(ctx, addr, l)
		}()
	}
	wg.Wait()
	r.mu.Lock()
	r.d.Labels = append(r.d.Labels, out...)
	r.mu.Unlock()
}

// LoadStateURL is the request for one label: GET
// /api/{db}/get_load_state?label=L (the database one escaped path segment).
func LoadStateURL(scheme, addr, db, label string) string {
	path := strings.Replace(doris.LoadStateAction.Name, "{db}", url.PathEscape(db), 1)
	return scheme + "://" + addr + path + "?label=" + url.QueryEscape(label)
}

func (r *doctorRun) label(ctx context.Context, addr string, l LabelRef) snapshot.LabelState {
	st := snapshot.LabelState{DB: l.DB, Label: l.Label, Target: addr}
	u := LoadStateURL(r.o.Scheme(), addr, l.DB, l.Label)
	h := r.get(ctx, u, envelopeAsksForAuth)
	if h.err != nil {
		st.Error = r.o.Secret().Redact(h.err).Error()
		return st
	}
	state, shape, err := parseLoadState(h.p.Body)
	st.State, st.Shape = state, shape
	if err != nil {
		st.Error = r.o.Secret().Redact(fmt.Errorf("GET %s: %w", redactQuery(u), err)).Error()
	}
	return st
}

// redactQuery drops the query string (the label) from a URL for an error
// that already names the label.
func redactQuery(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[:i]
	}
	return u
}

// parseLoadState reads both answer shapes of GetStreamLoadState:
//
//	{"msg":"success","code":0,"data":"VISIBLE","count":0}   httpv2 (ResponseEntityBuilder.ok)
//	{"status":"OK","msg":"Success","state":"VISIBLE"}       the older RestBaseResult + state
//
// An envelope with another code (okWithCommonError for an unknown
// database, badRequest for no label) is an error with Doris's reason.
func parseLoadState(body []byte) (state, shape string, err error) {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(body)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return "", "", errors.New("the answer is not a JSON object")
	}
	str := func(k string) (string, bool) {
		var s string
		raw, ok := m[k]
		if !ok || json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	if s, ok := str(doris.LoadStateAction.State.Name); ok {
		status, _ := str(doris.LoadStateAction.Status.Name)
		if status != "" && !strings.EqualFold(status, "OK") && !strings.EqualFold(status, "Success") {
			msg, _ := str(doris.LoadStateAction.Msg.Name)
			return "", "result", fmt.Errorf("FE answered status %s: %s", status, msg)
		}
		return strings.ToUpper(strings.TrimSpace(s)), "result", nil
	}
	e, derr := scrape.DecodeEnvelope(body)
	if derr != nil || e.Code == nil {
		return "", "", errors.New("the answer is neither shape of get_load_state")
	}
	if *e.Code != 0 && *e.Code != 200 {
		return "", "envelope", &scrape.FEAnswerError{URL: doris.LoadStateAction.Name, Code: e.Code, Msg: e.Msg, Data: e.DataText()}
	}
	s := strings.ToUpper(strings.TrimSpace(e.DataText()))
	if s == "" {
		return "", "envelope", errors.New("the envelope carries no state")
	}
	return s, "envelope", nil
}
