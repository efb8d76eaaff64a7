package doctor

import (
	"github.com/dorisdiag/dorisdiag/scrape"

	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
	"github.com/dorisdiag/dorisdiag/tso"
)

// The connectivity matrix: every FE's HTTP port, the Master's /api/tso, and
// every BE at each address a Stream Load redirect can name for this client,
// all at once, each bounded by the timeout as a whole. The outcome of a hop
// is named by where it stopped (snapshot.Outcome*), so a BE that accepts and
// never answers reads as the hang a loader redirected there would see.

// hops probes every hop discovery made known, concurrently.
func (r *doctorRun) hops(ctx context.Context) {
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	for _, fe := range r.d.Frontends {
		addr := r.feAddr(fe)
		if addr == "" {
			r.addHop(snapshot.Hop{Kind: snapshot.HopFEHTTP, Node: fe.ID, Outcome: snapshot.OutcomeSkipped,
				Error: "SHOW FRONTENDS names no host or HttpPort", TimeoutMs: r.t.Milliseconds()})
			continue
		}
		if addr == r.sessionHTTPAsked() {
			continue // asked already, as --host:--http-port
		}
		run(func() { r.feHTTPHop(ctx, fe, addr, "SHOW FRONTENDS Host:HttpPort") })
	}
	tsoAt, via := r.masterHTTP, "the Master's Host:HttpPort (SHOW FRONTENDS)"
	if tsoAt == "" {
		tsoAt, via = r.o.FEHTTPAddr(net.JoinHostPort(r.o.Host, strconv.Itoa(r.o.HTTPPort))), "--host:--http-port (no Master known)"
	}
	run(func() { r.tsoHop(ctx, tsoAt, via) })
	for _, be := range r.d.Backends {
		for _, t := range r.beTargets(be) {
			if t.addr == "" {
				r.addHop(snapshot.Hop{Kind: snapshot.HopBEHTTP, Node: be.ID, Via: t.via, Policies: t.policies, Outcome: snapshot.OutcomeSkipped,
					Error: t.err, TimeoutMs: r.t.Milliseconds()})
				continue
			}
			run(func() { r.beHTTPHop(ctx, be, t) })
		}
	}
	wg.Wait()
}

func hopOrder(h snapshot.Hop) int {
	return map[string]int{snapshot.HopFEQuery: 0, snapshot.HopFEHTTP: 1, snapshot.HopFETSO: 2, snapshot.HopBEHTTP: 3}[h.Kind]
}

// order makes the document deterministic (the hops and reads ran
// concurrently): hops by kind, node, target; readings FE first; gaps and
// clocks by source and target. It also names the --host hop's FE once
// discovery has said which FE that is.
func (r *doctorRun) order() {
	d := r.d
	for i := range d.Hops {
		if h := &d.Hops[i]; h.Kind == snapshot.HopFEHTTP && h.Node == "" && d.Session.Known && h.Target == r.sessionHTTP {
			h.Node = d.Session.Name
		}
	}
	for i := range d.Clocks {
		if c := &d.Clocks[i]; c.Node == "fe" && d.Session.Known && c.Target == r.sessionHTTP {
			c.Node = "fe " + d.Session.Name
		}
	}
	sort.SliceStable(d.Hops, func(i, j int) bool {
		a, b := d.Hops[i], d.Hops[j]
		if hopOrder(a) != hopOrder(b) {
			return hopOrder(a) < hopOrder(b)
		}
		if a.Node != b.Node {
			return a.Node < b.Node
		}
		return a.Target < b.Target
	})
	sort.SliceStable(d.Config, func(i, j int) bool {
		a, b := d.Config[i], d.Config[j]
		if a.Node != b.Node {
			return a.Node == "fe"
		}
		if a.IsMaster != b.IsMaster {
			return !a.IsMaster
		}
		return a.ID < b.ID
	})
	sort.SliceStable(d.Gaps, func(i, j int) bool {
		if d.Gaps[i].Source != d.Gaps[j].Source {
			return d.Gaps[i].Source < d.Gaps[j].Source
		}
		return d.Gaps[i].Target < d.Gaps[j].Target
	})
	sort.SliceStable(d.Clocks, func(i, j int) bool {
		if d.Clocks[i].Source != d.Clocks[j].Source {
			return d.Clocks[i].Source < d.Clocks[j].Source
		}
		return d.Clocks[i].Node < d.Clocks[j].Node
	})
}

// sessionHTTPAsked is the address the --host HTTP hop used.
func (r *doctorRun) sessionHTTPAsked() string {
	return r.o.FEHTTPAddr(net.JoinHostPort(r.o.Host, strconv.Itoa(r.o.HTTPPort)))
}

func (r *doctorRun) feAddr(fe snapshot.DoctorNode) string {
	if fe.Host == "" || fe.HTTPPort <= 0 {
		return ""
	}
	return r.o.FEHTTPAddr(net.JoinHostPort(strings.Trim(fe.Host, "[]"), strconv.Itoa(fe.HTTPPort)))
}

// beTarget is one address a BE is probed at.
type beTarget struct {
	addr     string
	via      string
	policies []string
	err      string // the FE answers an error, not a 307
}

// beTargets are the addresses a Stream Load to this BE can be redirected to
// (doris.StreamLoadRedirect): with the loader's redirect-policy header,
// that policy's address; without one, every policy's (the FE's
// streamload_redirect_policy picks among them: diag reads it from the
// configuration). The BE's own Host:HttpPort is always one of them, and
// tells a BE that is down from an address that does not route.
func (r *doctorRun) beTargets(be snapshot.DoctorNode) []beTarget {
	ep := doris.BackendEndpoints{Host: strings.Trim(be.Host, "[]"), HTTPPort: be.HTTPPort, Public: be.PublicEndpoint, Private: be.PrivateEndpoint}
	policies := []string{doris.PolicyDefault, doris.PolicyDirect, doris.PolicyPublic, doris.PolicyPrivate, doris.PolicyPublicPrivate}
	if r.o.RedirectPolicy != "" {
		policies = []string{r.o.RedirectPolicy, doris.PolicyDirect}
	}
	var out []beTarget
	index := map[string]int{}
	for _, p := range policies {
		rd := doris.StreamLoadRedirect(ep, p, r.o.LoadHost)
		name := p
		if name == "" {
			name = "default"
		}
		if rd.Err != "" {
			if r.o.RedirectPolicy != "" {
				out = append(out, beTarget{via: "policy " + name + ": " + rd.Rule, policies: []string{name},
					err: "the FE answers a Stream Load to this BE with an error, no redirect: " + rd.Err})
			}
			continue
		}
		addr := rd.Addr()
		if rd.Host == "" || rd.Port <= 0 {
			addr = ""
		}
		if i, ok := index[addr]; ok {
			out[i].via += "; " + rd.Rule
			out[i].policies = append(out[i].policies, name)
			continue
		}
		index[addr] = len(out)
		t := beTarget{addr: addr, via: rd.Rule, policies: []string{name}}
		if addr == "" {
			t.err = "SHOW BACKENDS names no host or HttpPort"
		}
		out = append(out, t)
	}
	return out
}

// httpHop is the shared part of the HTTP hops: one GET of the contract,
// bounded by the timeout as a whole, redirects not followed, credentials
// only on a challenge, and how it ended.
type httpHop struct {
	p         scrape.Payload
	err       error
	connected bool
	sent      time.Time
	recv      time.Time
}

func (r *doctorRun) get(ctx context.Context, rawURL string, ask scrape.AuthAsk) httpHop {
	var mu sync.Mutex
	h := httpHop{}
	mark := func() { mu.Lock(); h.connected = true; mu.Unlock() }
	trace := &httptrace.ClientTrace{
		ConnectDone: func(_, _ string, err error) {
			if err == nil {
				mark()
			}
		},
		GotConn: func(httptrace.GotConnInfo) { mark() },
	}
	// The doctor asks Doris for the contract's endpoints only: a URL whose
	// path is none of them is refused here (CheckHTTPRead then refuses any
	// method but GET and every mutating endpoint, on redirects too).
	if u, err := url.Parse(rawURL); err != nil || !isContractEndpoint(u.Path) {
		h.err = fmt.Errorf("%w: %s is no endpoint of the wire contract", scrape.ErrNotReadOnlyHTTP, rawURL)
		return h
	}
	hctx, cancel := context.WithTimeout(httptrace.WithClientTrace(ctx, trace), r.t)
	defer cancel()
	client := scrape.NewClient(r.fo)
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	h.sent = time.Now()
	p, err := scrape.Get(hctx, client, rawURL, r.fo, ask)
	h.recv = time.Now()
	client.CloseIdleConnections()
	mu.Lock()
	defer mu.Unlock()
	h.p, h.err = p, err
	return h
}

func (r *doctorRun) url(addr, path string) string { return r.o.Scheme() + "://" + addr + path }

func isContractEndpoint(p string) bool {
	_, ok := doris.Endpoint(p)
	return ok
}

// feHTTPHop probes GET /api/health on an FE.
func (r *doctorRun) feHTTPHop(ctx context.Context, fe snapshot.DoctorNode, addr, via string) {
	u := r.url(addr, doris.HealthAction.Name)
	h := r.get(ctx, u, envelopeAsksForAuth)
	hop := r.hop(snapshot.HopFEHTTP, fe.ID, addr, u, via, h)
	if h.err == nil {
		hop.Outcome = feHealthOutcome(h.p.Body, &hop)
		r.dateClock(fe, addr, h)
	}
	r.addHop(hop)
}

// tsoHop probes GET /api/tso on the Master and reads its clock.
func (r *doctorRun) tsoHop(ctx context.Context, addr, via string) {
	u := r.url(addr, doris.TSOAction.Name)
	h := r.get(ctx, u, scrape.TSOAsksForAuth)
	hop := r.hop(snapshot.HopFETSO, "", addr, u, via, h)
	if h.err == nil {
		ms, err := tsoPhysicalMs(h.p.Body)
		switch {
		case err == nil:
			r.addClock(snapshot.ClockReading{Source: doris.SourceHTTPTSO, Target: addr, ServerMs: ms, ResolutionMs: 1,
				SentMs: h.sent.UnixMilli(), ReceivedMs: h.recv.UnixMilli()})
		default:
			var fe *scrape.FEAnswerError
			hop.Outcome, hop.Error = snapshot.OutcomeHTTPError, err.Error()
			if errors.As(err, &fe) && fe.Code != nil && *fe.Code == 401 {
				hop.Outcome = snapshot.OutcomeUnauthorized
			}
		}
	}
	r.addHop(hop)
}

// beHTTPHop probes GET /api/health on a BE address.
func (r *doctorRun) beHTTPHop(ctx context.Context, be snapshot.DoctorNode, t beTarget) {
	u := r.url(t.addr, doris.HealthAction.Name)
	h := r.get(ctx, u, nil)
	hop := r.hop(snapshot.HopBEHTTP, be.ID, t.addr, u, t.via, h)
	hop.Policies = t.policies
	if h.err == nil {
		hop.Outcome = beHealthOutcome(h.p.Body, &hop)
		r.dateClock(be, t.addr, h)
	}
	r.addHop(hop)
}

// hop fills a Hop from an HTTP attempt (Outcome ok for a 2xx: the caller
// reads the body).
func (r *doctorRun) hop(kind, node, addr, u, via string, h httpHop) snapshot.Hop {
	hop := snapshot.Hop{Kind: kind, Node: node, Target: addr, URL: u, Via: via, Status: h.p.Status,
		ElapsedMs: h.recv.Sub(h.sent).Milliseconds(), TimeoutMs: r.t.Milliseconds()}
	if h.err == nil {
		hop.Outcome, hop.Reachable = snapshot.OutcomeOK, true
		return hop
	}
	hop.Outcome, hop.Reachable = classifyHTTP(h.err, h.connected)
	hop.Error = r.o.Secret().Redact(h.err).Error()
	var se *scrape.HTTPStatusError
	if errors.As(h.err, &se) {
		hop.Status, hop.Location = se.Code, se.Location
	}
	return hop
}

func (r *doctorRun) dateClock(n snapshot.DoctorNode, addr string, h httpHop) {
	if h.p.Date == "" {
		return
	}
	t, err := http.ParseTime(h.p.Date)
	if err != nil {
		return
	}
	r.addClock(snapshot.ClockReading{Source: "Date header", Node: strings.TrimSpace(n.Kind + " " + n.ID), Target: addr, ServerMs: t.UnixMilli(),
		ResolutionMs: 1000, SentMs: h.sent.UnixMilli(), ReceivedMs: h.recv.UnixMilli()})
}

// classifyHTTP names how an HTTP attempt failed, and whether anything
// answered. connected: a TCP connection was made, so a timeout is the
// server's silence, not the network's.
func classifyHTTP(err error, connected bool) (string, bool) {
	var se *scrape.HTTPStatusError
	var te *scrape.TimeoutError
	var cc *scrape.CleartextCredentialsError
	var tl *scrape.TooLargeError
	var rn *scrape.ReservedNameError
	var dns *net.DNSError
	var rh tls.RecordHeaderError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	var cv *tls.CertificateVerificationError
	switch {
	case errors.As(err, &se):
		switch {
		case se.Code == http.StatusUnauthorized:
			return snapshot.OutcomeUnauthorized, true
		case se.Code == http.StatusForbidden:
			return snapshot.OutcomeForbidden, true
		case se.Code >= 300 && se.Code < 400:
			return snapshot.OutcomeRedirected, true
		case se.Code == http.StatusBadRequest && strings.Contains(se.Body, "HTTP request to an HTTPS server"):
			return snapshot.OutcomeTLSMismatch, true
		case se.Code == http.StatusServiceUnavailable:
			return snapshot.OutcomeNotReady, true
		}
		return snapshot.OutcomeHTTPError, true
	case errors.As(err, &cc):
		return snapshot.OutcomeUnauthorized, true
	case errors.As(err, &tl):
		return snapshot.OutcomeHTTPError, true
	case errors.Is(err, scrape.ErrNotReadOnlyHTTP):
		return snapshot.OutcomeSkipped, false
	case errors.As(err, &te):
		if te.Phase == "connect" || !connected {
			return snapshot.OutcomeConnectTimeout, false
		}
		return snapshot.OutcomeReadTimeout, false
	case errors.Is(err, context.DeadlineExceeded), scrape.IsTimeout(err):
		if connected {
			return snapshot.OutcomeReadTimeout, false
		}
		return snapshot.OutcomeConnectTimeout, false
	case errors.As(err, &rn), errors.As(err, &dns):
		return snapshot.OutcomeUnresolvable, false
	case errors.Is(err, syscall.ECONNREFUSED):
		return snapshot.OutcomeRefused, false
	case errors.As(err, &ua), errors.As(err, &hn), errors.As(err, &ci), errors.As(err, &cv):
		return snapshot.OutcomeTLSCertificate, true
	case errors.As(err, &rh), strings.Contains(err.Error(), "malformed HTTP response"),
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"),
		strings.Contains(err.Error(), "tls: first record does not look like a TLS handshake"):
		return snapshot.OutcomeTLSMismatch, true
	case strings.Contains(err.Error(), "remote error: tls:"):
		return snapshot.OutcomeTLSMismatch, true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), strings.Contains(err.Error(), "server closed"):
		return snapshot.OutcomeClosed, connected
	}
	return snapshot.OutcomeError, false
}

// classifyMySQL names how the query port hop failed (the hop's own bound
// may end it as the caller's deadline: the hop it stopped in decides).
func classifyMySQL(err error) string {
	var ne *scrape.NetError
	var me *mysql.MySQLError
	var rn *scrape.ReservedNameError
	var dns *net.DNSError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var cv *tls.CertificateVerificationError
	switch {
	case errors.As(err, &rn), errors.As(err, &dns):
		return snapshot.OutcomeUnresolvable
	case errors.Is(err, mysql.ErrNoTLS):
		return snapshot.OutcomeTLSMismatch
	case errors.As(err, &ua), errors.As(err, &hn), errors.As(err, &cv):
		return snapshot.OutcomeTLSCertificate
	case errors.As(err, &me):
		switch me.Number {
		case 1045:
			return snapshot.OutcomeUnauthorized
		case 3159: // ER_SECURE_TRANSPORT_REQUIRED
			return snapshot.OutcomeTLSMismatch
		}
		return snapshot.OutcomeError
	case errors.As(err, &ne):
		timeout := ne.Kind == scrape.KindTimeout || errors.Is(ne.Err, context.DeadlineExceeded)
		switch {
		case timeout && ne.Hop == scrape.HopMySQLConnect:
			return snapshot.OutcomeConnectTimeout
		case timeout:
			return snapshot.OutcomeReadTimeout
		case ne.Kind == scrape.KindRefused:
			return snapshot.OutcomeRefused
		case ne.Kind == scrape.KindClosed:
			return snapshot.OutcomeClosed
		}
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return snapshot.OutcomeRefused
	}
	return snapshot.OutcomeError
}

// mysqlReachable: the FE answered something (a MySQL error, a handshake).
func mysqlReachable(err error) bool {
	var me *mysql.MySQLError
	var ne *scrape.NetError
	if errors.As(err, &me) {
		return true
	}
	return errors.As(err, &ne) && (ne.Hop != scrape.HopMySQLConnect && ne.Kind != scrape.KindRefused)
}

// feHealthOutcome reads HealthAction's envelope: code 0 is ok.
func feHealthOutcome(body []byte, hop *snapshot.Hop) string {
	e, err := scrape.DecodeEnvelope(body)
	if err != nil || e.Code == nil {
		hop.Error = "the answer is not HealthAction's envelope"
		return snapshot.OutcomeOK // an HTTP server answered 2xx
	}
	switch *e.Code {
	case 0:
		return snapshot.OutcomeOK
	case 401:
		hop.Error = "FE answered code 401: " + e.DataText()
		return snapshot.OutcomeUnauthorized
	case 503:
		hop.Error = "FE answered code 503: " + e.DataText()
		return snapshot.OutcomeNotReady
	}
	hop.Error = "FE answered code " + strconv.Itoa(*e.Code) + ": " + e.Msg + " " + e.DataText()
	return snapshot.OutcomeHTTPError
}

// beHealthOutcome reads the BE's {"status": "OK", "msg": …}.
func beHealthOutcome(body []byte, hop *snapshot.Hop) string {
	var b struct {
		Status string `json:"status"`
		Msg    string `json:"msg"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(body), &b); err != nil || b.Status == "" {
		hop.Error = "the answer is not the BE's health answer"
		return snapshot.OutcomeOK
	}
	if !strings.EqualFold(b.Status, "OK") {
		hop.Error = "BE answered " + b.Status + ": " + b.Msg
		return snapshot.OutcomeNotReady
	}
	return snapshot.OutcomeOK
}

// tsoPhysicalMs reads TSOAction's answer: the physical time of current_tso
// (or current_tso_physical_time when the TSO is absent).
func tsoPhysicalMs(body []byte) (int64, error) {
	e, err := scrape.DecodeEnvelope(body)
	if err != nil {
		return 0, errors.New("GET /api/tso: not JSON")
	}
	if e.Code == nil || *e.Code != 0 {
		return 0, &scrape.FEAnswerError{URL: doris.TSOAction.Name, Code: e.Code, Msg: e.Msg, Data: e.DataText()}
	}
	var data struct {
		CurrentTSO   json.Number `json:"current_tso"`
		PhysicalTime json.Number `json:"current_tso_physical_time"`
	}
	dec := json.NewDecoder(bytes.NewReader(e.Data))
	dec.UseNumber()
	if err := dec.Decode(&data); err != nil {
		return 0, errors.New("GET /api/tso: data is not an object")
	}
	if pt, err := tso.Parse(data.CurrentTSO.String()); err == nil && pt.Kind == tso.KindTSO && pt.TSO > 0 {
		return pt.TSO.Physical(), nil
	}
	if ms, err := data.PhysicalTime.Int64(); err == nil && ms > 0 {
		return ms, nil
	}
	return 0, errors.New("GET /api/tso: no current_tso")
}

// envelopeAsksForAuth recognises an httpv2 envelope asking for credentials
// without a 401 challenge: code 401 (ResponseEntityBuilder.unauthorized), or
// TSOAction's code 400 "Need auth information.".
func envelopeAsksForAuth(body []byte) bool { return scrape.TSOAsksForAuth(body) }
