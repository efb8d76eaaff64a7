package doctor

import (
	"github.com/dorisdiag/dorisdiag/scrape"

	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Doctor: is this cluster configured for its changelog consumers, and can
// this host reach every node a load or a scrape is sent to (issue 22)? It
// reads, it never judges: every key, hop, clock and label state goes into a
// snapshot.Doctor, which diag judges purely (and a support bundle carries).
// Read-only like everything else: SELECT, SHOW and HTTP GET of the wire
// contract only (CheckReadOnly, CheckHTTPRead).

// DoctorParts selects what Doctor reads.
type DoctorParts uint8

// Doctor parts.
const (
	// DoctorConfig reads every FE's and BE's configuration keys of the
	// contract (doris.ConfigKeys).
	DoctorConfig DoctorParts = 1 << iota
	// DoctorNet probes every hop from this host, concurrently.
	DoctorNet
	// DoctorLabels reads the state of DoctorOptions.Labels.
	DoctorLabels
)

func (p DoctorParts) names() []string {
	var out []string
	for _, x := range []struct {
		bit  DoctorParts
		name string
	}{{DoctorConfig, "config"}, {DoctorNet, "net"}, {DoctorLabels, "labels"}} {
		if p&x.bit != 0 {
			out = append(out, x.name)
		}
	}
	return out
}

// LabelRef is one Stream Load label to look up.
type LabelRef struct {
	DB    string
	Label string
}

// DoctorOptions configure a doctor run.
type DoctorOptions struct {
	// Config is the connection: Host, Port, HTTPPort, User, Password, TLS,
	// Timeout (the bound of every hop: the connectivity matrix takes at most
	// 2 x Timeout, discovery included).
	scrape.Config
	Parts DoctorParts
	// RedirectPolicy is the redirect-policy header the loader sends with
	// its Stream Load ("": none, the FE's streamload_redirect_policy).
	RedirectPolicy string
	// LoadHost is the FE host the loader addresses (its Host header); ""
	// is Host.
	LoadHost string
	// Labels are looked up with DoctorLabels.
	Labels []LabelRef
	// LabelConcurrency bounds the label requests in flight (0: 4).
	LabelConcurrency int
	// HTTPDialContext replaces the TCP dialer of the HTTP hops (tests: a
	// black hole, which loopback cannot otherwise give); nil dials.
	HTTPDialContext func(ctx context.Context, network, addr string) (net.Conn, error)
}

// doctorRun is one run's state.
type doctorRun struct {
	o     DoctorOptions
	d     *snapshot.Doctor
	mu    sync.Mutex        // d.Hops, d.Clocks, d.Gaps, d.Config, d.Labels
	c     *scrape.SQLClient // the MySQL session; nil when it could not be opened
	fo    scrape.FetchOptions
	t     time.Duration
	sqlOK bool // the session answered SELECT 1

	sessionHTTP string // host:port of the session FE's HTTP port
	masterHTTP  string // host:port of the Master's HTTP port ("" unknown)
}

// Doctor runs the parts of o.Parts and returns what it read. It fails only
// on bad options: an FE that cannot be reached, a privilege that is
// missing, a node that hangs are all recorded (Hops, Gaps), never an error.
func Doctor(ctx context.Context, o DoctorOptions) (*snapshot.Doctor, error) {
	o.Defaults()
	if o.Host == "" {
		return nil, errors.New("doctor: no --host")
	}
	if o.Parts == 0 {
		return nil, errors.New("doctor: nothing to run")
	}
	if o.LoadHost == "" {
		o.LoadHost = o.Host
	}
	if o.LabelConcurrency <= 0 {
		o.LabelConcurrency = 4
	}
	fo, err := o.FetchOptions(4 << 20)
	if err != nil {
		return nil, err
	}
	// Every hop is bounded by Timeout as a whole, not per phase.
	fo.RequestTimeout = o.Timeout
	fo.Accept = "application/json"
	fo.DialContext = o.HTTPDialContext
	start := time.Now()
	r := &doctorRun{o: o, fo: fo, t: o.Timeout, d: &snapshot.Doctor{
		TakenAtMs: start.UnixMilli(), TimeoutMs: o.Timeout.Milliseconds(), Parts: o.Parts.names(),
		Session:  snapshot.DoctorSession{Host: net.JoinHostPort(o.Host, strconv.Itoa(o.Port))},
		LoadHost: o.LoadHost, RedirectPolicy: o.RedirectPolicy, Gaps: []snapshot.DoctorGap{},
	}}
	r.sessionHTTP = o.FEHTTPAddr(net.JoinHostPort(o.Host, strconv.Itoa(o.HTTPPort)))

	// The connectivity matrix: discovery (the query port hop, SHOW
	// FRONTENDS, SHOW BACKENDS) within Timeout, the --host HTTP hop beside
	// it, then every other hop at once within Timeout: 2 x Timeout in all.
	netCtx, cancelNet := context.WithTimeout(ctx, 2*o.Timeout)
	defer cancelNet()
	var first sync.WaitGroup
	if o.Parts&DoctorNet != 0 {
		first.Add(1)
		addr := r.sessionHTTP
		go func() {
			defer first.Done()
			r.feHTTPHop(netCtx, snapshot.DoctorNode{Kind: "fe", Host: o.Host, HTTPPort: o.HTTPPort}, addr, "--host:--http-port")
		}()
	}
	dctx, cancelDisc := context.WithTimeout(netCtx, o.Timeout)
	r.discover(dctx)
	cancelDisc()
	if r.c != nil {
		defer r.c.DB.Close()
	}

	var rest sync.WaitGroup
	if o.Parts&DoctorNet != 0 {
		rest.Add(1)
		go func() {
			defer rest.Done()
			r.hops(netCtx)
			first.Wait()
			r.d.NetElapsedMs = time.Since(start).Milliseconds()
		}()
	}
	if o.Parts&DoctorConfig != 0 || o.Parts&DoctorNet != 0 && o.RedirectPolicy == "" {
		// The FE's streamload_redirect_policy decides which of the probed
		// BE addresses a 307 names; the rest of the configuration only
		// with DoctorConfig.
		rest.Add(1)
		go func() {
			defer rest.Done()
			r.config(ctx, o.Parts&DoctorConfig != 0)
		}()
	}
	if o.Parts&DoctorLabels != 0 {
		rest.Add(1)
		go func() {
			defer rest.Done()
			r.labels(ctx)
		}()
	}
	rest.Wait()
	r.effectivePolicy()
	r.order()
	r.d.Gaps = redactGaps(r.d.Gaps, o.Secret())
	return r.d, nil
}

// discover opens the session and reads who is who: the query port hop
// (connect, handshake, SELECT 1), then SHOW FRONTENDS and SHOW BACKENDS,
// all within ctx's bound (Timeout).
func (r *doctorRun) discover(ctx context.Context) {
	addr := net.JoinHostPort(r.o.Host, strconv.Itoa(r.o.Port))
	hop := snapshot.Hop{Kind: snapshot.HopFEQuery, Target: addr, TimeoutMs: r.t.Milliseconds(), Via: "--host:--port"}
	start := time.Now()
	defer func() {
		hop.ElapsedMs = time.Since(start).Milliseconds()
		if r.o.Parts&DoctorNet != 0 {
			r.addHop(hop)
		}
	}()
	if err := scrape.ReservedName(addr); err != nil {
		hop.Outcome, hop.Error = snapshot.OutcomeUnresolvable, err.Error()
		r.gap(doris.SourceSelectOne, snapshot.GapUnreachable, "", addr, err)
		return
	}
	db, err := scrape.OpenDB(r.o.Config, addr)
	if err != nil {
		hop.Outcome, hop.Error = classifyMySQL(err), r.o.Secret().Redact(err).Error()
		r.gap(doris.SourceSelectOne, snapshot.GapError, "", addr, err)
		return
	}
	r.c = &scrape.SQLClient{DB: db, Timeout: r.t, Host: addr, Secret: r.o.Secret()}
	q := doris.SelectOne.Statements[0].Build()
	if _, err := r.c.Query(ctx, q); err != nil {
		hop.Outcome, hop.Error = classifyMySQL(err), err.Error()
		hop.Reachable = mysqlReachable(err)
		r.gap(doris.SourceSelectOne, gapKind(err), privilegeOf(err), q, err)
		return
	}
	r.sqlOK = true
	hop.Outcome, hop.Reachable = snapshot.OutcomeOK, true
	r.frontends(ctx)
	r.backends(ctx)
}

func (r *doctorRun) frontends(ctx context.Context) {
	q := doris.Frontends.Statements[0].Build()
	t, err := r.c.Query(ctx, q)
	if err != nil {
		r.gap(doris.SourceFrontends, gapKind(err), privilegeOf(err), q, err)
		return
	}
	c := doris.Frontends
	for _, row := range t.Rows {
		get := func(col doris.Column) string { return scrape.Cell(t, row, col) }
		n := snapshot.DoctorNode{Kind: "fe", ID: get(c.Name), Host: scrape.FirstNonEmpty(get(c.Host), get(c.HostName), get(c.IP)),
			HTTPPort: scrape.Atoi(get(c.HTTPPort)), QueryPort: scrape.Atoi(get(c.QueryPort)), IsMaster: isTrue(get(c.IsMaster)),
			Alive: isTrue(get(c.Alive)), Version: get(c.Version)}
		if strings.EqualFold(get(c.CurrentConnected), "yes") {
			r.d.Session.Name, r.d.Session.IsMaster, r.d.Session.Known = n.ID, n.IsMaster, true
			if n.Host != "" && n.HTTPPort > 0 {
				r.sessionHTTP = r.o.FEHTTPAddr(net.JoinHostPort(strings.Trim(n.Host, "[]"), strconv.Itoa(n.HTTPPort)))
			}
		}
		if n.IsMaster && n.Host != "" && n.HTTPPort > 0 {
			r.masterHTTP = r.o.FEHTTPAddr(net.JoinHostPort(strings.Trim(n.Host, "[]"), strconv.Itoa(n.HTTPPort)))
		}
		r.d.Frontends = append(r.d.Frontends, n)
	}
}

func (r *doctorRun) backends(ctx context.Context) {
	q := doris.Backends.Statements[0].Build()
	t, err := r.c.Query(ctx, q)
	if err != nil {
		r.gap(doris.SourceBackends, gapKind(err), privilegeOf(err), q, err)
		return
	}
	c := doris.Backends
	for _, row := range t.Rows {
		get := func(col doris.Column) string { return scrape.Cell(t, row, col) }
		n := snapshot.DoctorNode{Kind: "be", ID: get(c.BackendID), Host: scrape.FirstNonEmpty(get(c.Host), get(c.HostName), get(c.IP)),
			HTTPPort: scrape.Atoi(get(c.HTTPPort)), Alive: isTrue(get(c.Alive)), Version: get(c.Version)}
		if t.Has(c.Tag.Name) {
			pub, priv, err := doris.ParseBackendTag(get(c.Tag))
			if err != nil {
				n.Tag = get(c.Tag)
				r.gap(doris.SourceBackends, snapshot.GapError, "", q, fmt.Errorf("backend %s: %w", n.ID, err))
			}
			n.PublicEndpoint, n.PrivateEndpoint = pub, priv
		}
		r.d.Backends = append(r.d.Backends, n)
	}
}

// cell is a cell's text ("" for NULL or an absent column).
func isTrue(s string) bool {
	s = strings.TrimSpace(s)
	return strings.EqualFold(s, "true") || s == "1"
}

func (r *doctorRun) addHop(h snapshot.Hop) {
	r.mu.Lock()
	r.d.Hops = append(r.d.Hops, h)
	r.mu.Unlock()
}

func (r *doctorRun) addClock(c snapshot.ClockReading) {
	r.mu.Lock()
	r.d.Clocks = append(r.d.Clocks, c)
	r.mu.Unlock()
}

// gap records what could not be read; the error text is redacted later.
func (r *doctorRun) gap(source, kind, privilege, target string, err error) {
	r.mu.Lock()
	r.d.Gaps = append(r.d.Gaps, snapshot.DoctorGap{Source: source, Kind: kind, Privilege: privilege, Target: target, Error: err.Error()})
	r.mu.Unlock()
}

// supersede marks the gaps of source as covered by another source.
func (r *doctorRun) supersede(source, by string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.d.Gaps {
		if g := &r.d.Gaps[i]; g.Source == source && g.Superseded == "" {
			g.Superseded = by
		}
	}
}

func redactGaps(gs []snapshot.DoctorGap, s scrape.Secret) []snapshot.DoctorGap {
	for i := range gs {
		gs[i].Error = s.Redact(errors.New(gs[i].Error)).Error()
	}
	return gs
}

// privRE reads the privilege of Doris's ERR_SPECIFIC_ACCESS_DENIED_ERROR:
// "Access denied; you need (at least one of) the (ADMIN) privilege(s) for
// this operation" (ErrorCode.java).
var privRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)the \(([^)]{1,80})\) privilege`) })

// privilegeOf names the privilege an access-denied error asks for ("" for
// any other error).
func privilegeOf(err error) string {
	if !isPrivilegeError(err) {
		return ""
	}
	if m := privRE().FindStringSubmatch(err.Error()); m != nil {
		return m[1]
	}
	return "unknown"
}

// isPrivilegeError: MySQL 1227 (specific access denied), 1142 (table
// access), 1044 (database access), or Doris's "Access denied" text.
func isPrivilegeError(err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) && (me.Number == 1227 || me.Number == 1142 || me.Number == 1044) {
		return true
	}
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "access denied") && !strings.Contains(s, "using password")
}

func gapKind(err error) string {
	var ne *scrape.NetError
	switch {
	case isPrivilegeError(err):
		return snapshot.GapPrivilege
	case errors.As(err, &ne) && ne.Kind != scrape.KindServer:
		return snapshot.GapUnreachable
	}
	return snapshot.GapError
}
