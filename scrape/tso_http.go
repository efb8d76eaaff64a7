package scrape

import (
	"time"

	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/dorisdiag/dorisdiag/exposition"
	"github.com/dorisdiag/dorisdiag/tso"
)

// FetchTSO is the last clock fallback: GET /api/tso on target (host:port of
// an FE's HTTP server; the collector picks the Master's, see tsoTargets).
//
// Doris's TSOAction (fe-core/.../httpv2/rest/TSOAction.java @db2b4e86)
// answers every outcome with HTTP 200 and the httpv2 envelope
// (ResponseEntityBuilder: "All response will return with http code 200"):
//
//	{"code":0,"msg":"success","data":{"current_tso":...,...}}   the Master
//	{"code":400,"msg":"Bad Request","data":"Current FE is not master"}   a follower
//	{"code":400,"msg":"Bad Request","data":"Need auth information."}   no Authorization header
//
// The last one is its way of asking for credentials: executeCheckPassword
// throws UnauthorizedException("Need auth information.") from
// BaseController.getAuthorizationInfo, and TSOAction's catch (Exception)
// turns it into badRequest — no 401, no WWW-Authenticate. get treats that
// exact shape as the challenge (tsoAsksForAuth). The TSO exceeds 2^53, so
// the body is decoded with UseNumber, never through float64.
func FetchTSO(ctx context.Context, cfg Config, target string) (tso.TSO, string, error) {
	u := cfg.Scheme() + "://" + target + "/api/tso"
	o, err := cfg.FetchOptions(1 << 20)
	if err != nil {
		return 0, u, err
	}
	o.Accept = "application/json"
	p, err := Get(ctx, httpClient(o), u, o, TSOAsksForAuth)
	if err != nil {
		return 0, u, err
	}
	resp, err := DecodeEnvelope(p.Body)
	if err != nil {
		return 0, u, fmt.Errorf("GET %s: not JSON: %w", u, err)
	}
	if resp.Code == nil || *resp.Code != 0 {
		return 0, u, &FEAnswerError{URL: u, Code: resp.Code, Msg: resp.Msg, Data: resp.DataText()}
	}
	var data struct {
		CurrentTSO json.Number `json:"current_tso"`
	}
	dec := json.NewDecoder(bytes.NewReader(resp.Data))
	dec.UseNumber()
	if err := dec.Decode(&data); err != nil {
		return 0, u, fmt.Errorf("GET %s: data: %w", u, err)
	}
	pt, err := tso.Parse(data.CurrentTSO.String())
	if err != nil || pt.Kind != tso.KindTSO || pt.TSO <= 0 {
		return 0, u, fmt.Errorf("GET %s: current_tso %q is not a real TSO", u, data.CurrentTSO)
	}
	return pt.TSO, u, nil
}

// envelope is the httpv2 ResponseBody: {code, msg, data}.
type envelope struct {
	Code *int            `json:"code"`
	Msg  string          `json:"msg"`
	Data json.RawMessage `json:"data"`
}

func DecodeEnvelope(body []byte) (envelope, error) {
	var e envelope
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	err := dec.Decode(&e)
	return e, err
}

// DataText is data as text: a JSON string unquoted, anything else as sent.
func (e envelope) DataText() string {
	var s string
	if json.Unmarshal(e.Data, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(e.Data))
}

// TSOAsksForAuth recognises TSOAction's answer to a request without
// credentials: code 400 with data "Need auth information." (verified, see
// fetchTSO). A code 401 envelope (ResponseEntityBuilder.unauthorized) is
// accepted too: UNVERIFIED that /api/tso ever sends it.
func TSOAsksForAuth(body []byte) bool {
	e, err := DecodeEnvelope(body)
	if err != nil || e.Code == nil {
		return false
	}
	if *e.Code == 401 {
		return true
	}
	return *e.Code == 400 && strings.Contains(strings.ToLower(e.DataText()), "need auth information")
}

// FEAnswerError is an httpv2 envelope with a code other than 0; Data is
// Doris's reason ("Current FE is not master").
type FEAnswerError struct {
	URL  string
	Code *int
	Msg  string
	Data string
}

func (e *FEAnswerError) Error() string {
	code := "missing"
	if e.Code != nil {
		code = fmt.Sprint(*e.Code)
	}
	msg := fmt.Sprintf("GET %s: FE answered code %s", e.URL, code)
	if e.Msg != "" {
		msg += " (" + exposition.DisplayValue([]byte(e.Msg)) + ")"
	}
	if e.Data != "" {
		msg += ": " + exposition.DisplayValue([]byte(e.Data))
	}
	return msg
}

// NotMaster: the FE asked is a follower (TSOAction: "Current FE is not
// master").
func (e *FEAnswerError) NotMaster() bool {
	return strings.Contains(strings.ToLower(e.Data), "not master")
}

// httpClient is a client with o's connect timeout, no proxy (a cluster's
// own nodes are never reached through one).
func httpClient(o FetchOptions) *http.Client { return NewClient(o) }

// wholeRequest bounds a whole HTTP request of a live collection: each hop
// (connect, response headers, body) has --timeout, and the whole request at
// most three of them. Were the whole-request timer equal to the header
// timer, a silent port would fail with one text or the other at random.
func wholeRequest(hop time.Duration) time.Duration { return 3 * hop }
