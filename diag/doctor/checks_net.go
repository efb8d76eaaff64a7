package doctor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dorisdiag/dorisdiag/diag"
	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// The network verdicts (issue 22 item 3): each hop from this host, by how it
// ended; the clocks; the versions of the nodes. A BE hop is judged as the
// Stream Load that a 307 sends there: a hop that times out is the hang the
// loader sees (the FE's /api/health stays fine meanwhile).

// CodeStreamLoadHang: a BE a Stream Load 307 names does not answer in time.
var CodeStreamLoadHang = diag.Declare(diag.Declaration{
	Code: "NET_STREAM_LOAD_HANG", Severity: diag.SeverityCritical,
	Action: "make the BE address reachable from loaders",
	Impact: diag.ImpactBroken, Place: 17,
	Title: "A BE a Stream Load is redirected to does not answer from this host: the load hangs after the 307",
	Spec:  "Doris LoadAction (selectRedirectBackend, selectEndpointByRedirectPolicy, streamload_redirect_policy); the 307 hang measured by a Stream Load CDC sink design (\"Topology\")",
	Meaning: "The FE answers a Stream Load with a 307 to a BE's webserver, at the address the redirect policy picks (Host:HttpPort, or the BE's public or private endpoint). " +
		"From this host that address did not connect (connect timeout) or connected and never answered (read timeout) within --timeout.",
	Matters: "A Stream Load redirected here hangs until the client's own timeout, while the FE's /api/health looks fine: the loader stalls, retries, or reports a broken pipe.",
	Confirm: "dorisdiag doctor net --host FE --timeout 5s;  curl -v --max-time 5 http://BE:8040/api/health",
	Fix:     "Make the address reachable from the loaders (firewall, routing, the BE's advertised host), or set the BE's public/private endpoint (ALTER SYSTEM MODIFY BACKEND ... 'tag.public_endpoint') and the redirect policy the loaders need.",
	Related: []string{"NET_HOP_UNREACHABLE"},
})

// CodeHopUnreachable: a hop is refused, unresolvable, closed or timed out.
var CodeHopUnreachable = diag.Declare(diag.Declaration{
	Code: "NET_HOP_UNREACHABLE", Severity: diag.SeverityCritical,
	Action: "check the node, its port and firewalls",
	Impact: diag.ImpactBroken, Place: 18,
	Title: "A node is unreachable from this host: refused, unresolvable, closed or timed out",
	Spec:  "docs/doctor.md (the connectivity matrix)",
	Meaning: "The FE query port, an FE's HTTP port, the Master's /api/tso or a BE's webserver did not answer from this host: the connection was refused, the name did not resolve, the peer closed it, " +
		"or it timed out; or the FE answers a Stream Load to a BE with an error instead of a redirect.",
	Matters: "Whatever goes through that hop fails from here: queries, scrapes, TSO reads, loads.",
	Confirm: "dorisdiag doctor net --host FE;  nc -vz HOST PORT",
	Fix:     "Check that the node runs and listens on that port, the name resolves from this host, and no firewall drops the connection.",
	Related: []string{"NET_STREAM_LOAD_HANG"},
})

// CodeTLSMismatch: one side speaks TLS and the other not, or the certificate is untrusted.
var CodeTLSMismatch = diag.Declare(diag.Declaration{
	Code: "NET_TLS_MISMATCH", Severity: diag.SeverityWarning,
	Action: "use the node's scheme and trust its CA",
	Impact: diag.ImpactVisibility, Place: 15,
	Title:   "TLS mismatch on a hop: one side speaks TLS and the other not, or the certificate is not trusted",
	Spec:    "Doris Config.java enable_https, enable_tls; docs/security.md \"Network\"",
	Meaning: "The hop answered with a TLS alert to plain HTTP, plain HTTP to a TLS hello, a redirect to another (HTTPS) port, or a certificate this host does not trust.",
	Matters: "Clients using the other scheme fail on this node.",
	Confirm: "curl -v http://HOST:PORT/api/health;  curl -v https://HOST:PORT/api/health",
	Fix:     "Use the node's scheme (--http-scheme https, --fe-https-port) and trust its CA (--tls-ca).",
	Related: []string{"CONFIG_HTTPS_ONLY"},
})

// CodeUnauthorized: a hop answered 401/403.
var CodeUnauthorized = diag.Declare(diag.Declaration{
	Code: "NET_UNAUTHORIZED", Severity: diag.SeverityWarning,
	Action: "check --user and DORISDIAG_PASSWORD",
	Impact: diag.ImpactVisibility, Place: 16,
	Title:   "A hop is reachable but refuses the credentials (401/403, MySQL 1045)",
	Spec:    "Doris enable_all_http_auth, executeCheckPassword; docs/security.md \"Credentials\"",
	Meaning: "The node answered, and refused the request: credentials missing, wrong, or lacking a privilege.",
	Matters: "The network is fine; what goes through this hop with these credentials fails.",
	Confirm: "curl -v -u USER http://HOST:PORT/api/health",
	Fix:     "Check --user and DORISDIAG_PASSWORD, and the user's privileges.",
})

// CodeNodeNotReady: a hop answered that the node does not serve.
var CodeNodeNotReady = diag.Declare(diag.Declaration{
	Code: "NET_NODE_NOT_READY", Severity: diag.SeverityWarning,
	Action: "wait for the node, or read its log",
	Impact: diag.ImpactVisibility, Place: 17,
	Title:   "A node answers, but says it is not serving (starting, stopping, or an HTTP error)",
	Spec:    "Doris HealthAction (\"Server is not ready\"), be health_action.cpp (\"Server is not available\")",
	Meaning: "The node's /api/health answered with an error status or a body saying it is not ready or shutting down.",
	Matters: "Loads and scrapes sent to it fail until it serves again.",
	Confirm: "curl -v http://HOST:PORT/api/health",
	Fix:     "Wait for the node to finish starting, or look at its log for why it stopped serving.",
})

// CodeClockSkew: this host's clock and a node's disagree.
var CodeClockSkew = diag.Declare(diag.Declaration{
	Code: "NET_CLOCK_SKEW", Severity: diag.SeverityWarning,
	Action: "synchronise the clocks (NTP, chrony)",
	Impact: diag.ImpactVisibility, Place: 18,
	Title:   "This host's clock and a node's disagree by more than --max-clock-skew",
	Spec:    "Doris TSOAction (GET /api/tso current_tso_physical_time); the HTTP Date header",
	Meaning: "A server time read over the network (the TSO's physical time, or a Date header) lies outside this host's clock by more than the threshold, even allowing for the round trip and the reading's resolution.",
	Matters: "Times given in this host's clock (tso decode --local, --now, a loader's own timestamps) are off by as much against the cluster's TSO; a skewed FE also skews the TSOs it allocates.",
	Confirm: "dorisdiag doctor net --host FE;  chronyc tracking",
	Fix:     "Synchronise the clocks (NTP/chrony) of this host and the cluster's nodes.",
})

// CodeVersionMismatch: the FEs and BEs do not all run one version.
var CodeVersionMismatch = diag.Declare(diag.Declaration{
	Code: "NET_VERSION_MISMATCH", Severity: diag.SeverityWarning,
	Action: "finish the rolling upgrade",
	Impact: diag.ImpactHygiene, Place: 5,
	Title:   "The FEs and BEs do not all run the same Doris version",
	Spec:    "SHOW FRONTENDS Version, SHOW BACKENDS Version",
	Meaning: "The Version columns of SHOW FRONTENDS and SHOW BACKENDS name more than one build.",
	Matters: "Mid-upgrade clusters mix behaviours: a column, a config key or a fix present on one node and not on another. Finish the upgrade before trusting a diagnosis.",
	Confirm: "SHOW FRONTENDS;  SHOW BACKENDS;",
	Fix:     "Finish the rolling upgrade so that every node runs one version.",
})

func (r *run) netChecks() {
	for _, h := range r.d.Hops {
		r.hopCheck(h)
	}
	r.clockChecks()
	r.versionCheck()
}

// normPolicy names a policy as snapshot.Hop.Policies does.
func normPolicy(p string) string {
	switch p {
	case doris.PolicyDefault:
		return "default"
	case doris.PolicyRandomBE:
		return doris.PolicyDirect // the same address (LoadAction)
	}
	return p
}

// redirected reports whether a Stream Load's 307 sends loaders to this BE
// hop: under the effective policy, or any candidate when it is unknown.
func (r *run) redirected(h snapshot.Hop) bool {
	if r.d.PolicySource == "unknown" || r.d.PolicySource == "" {
		return true
	}
	want := normPolicy(r.d.EffectivePolicy)
	for _, p := range h.Policies {
		if p == want {
			return true
		}
	}
	return false
}

func (r *run) hopGroup(h snapshot.Hop) string {
	switch h.Kind {
	case snapshot.HopBEHTTP:
		return "BE " + h.Node
	case snapshot.HopFEQuery:
		return "this host"
	}
	if h.Node == "" {
		return r.groupOf("", h.Target)
	}
	return "FE " + h.Node
}

// groupOf names the node of a reading by its node ("fe NAME", "be ID" or a
// bare FE name) or, without one, by the FE whose HTTP hop had its target.
func (r *run) groupOf(node, target string) string {
	if k, id, ok := strings.Cut(node, " "); ok && (k == "fe" || k == "be") {
		return strings.ToUpper(k) + " " + id
	}
	if node != "" {
		return "FE " + node
	}
	for _, h := range r.d.Hops {
		if h.Kind == snapshot.HopFEHTTP && h.Target == target && h.Node != "" {
			return "FE " + h.Node
		}
	}
	if target == "" {
		return "this host"
	}
	return "node " + target
}

func hopName(h snapshot.Hop) string {
	switch h.Kind {
	case snapshot.HopFEQuery:
		return "query port " + h.Target
	case snapshot.HopFEHTTP:
		return strings.TrimSpace("HTTP " + h.Target)
	case snapshot.HopFETSO:
		return strings.TrimSpace("/api/tso " + h.Target)
	case snapshot.HopBEHTTP:
		p := strings.Join(h.Policies, ", ")
		if h.Target == "" {
			return "Stream Load redirect (" + p + ")"
		}
		return "Stream Load redirect " + h.Target + " (" + p + ")"
	}
	return h.Kind + " " + h.Target
}

func (r *run) hopObject(h snapshot.Hop) diag.Object {
	return diag.Object{Kind: "node", Name: strings.TrimSpace(r.hopGroup(h) + " " + h.Target)}
}

func (r *run) hopCheck(h snapshot.Hop) {
	g, name := r.hopGroup(h), hopName(h)
	ev := map[string]string{"hop": h.Kind, "target": h.Target, "outcome": h.Outcome, "elapsed_ms": strconv.FormatInt(h.ElapsedMs, 10), "timeout_ms": strconv.FormatInt(h.TimeoutMs, 10)}
	if h.Via != "" {
		ev["via"] = h.Via
	}
	isBE := h.Kind == snapshot.HopBEHTTP
	loads := isBE && r.redirected(h)
	why := ""
	if h.Error != "" {
		why = ": " + h.Error
	}
	switch h.Outcome {
	case snapshot.OutcomeOK:
		r.pass(g, name, fmt.Sprintf("ok in %d ms", h.ElapsedMs))
		return
	case snapshot.OutcomeSkipped:
		if isBE && loads && strings.Contains(h.Error, "no redirect") {
			r.raise(g, name, finding(CodeHopUnreachable, r.hopObject(h), "a Stream Load to BE "+h.Node+" fails at the FE: "+h.Error,
				"The redirect policy names an endpoint this BE does not have.", "set the BE's endpoint (ALTER SYSTEM MODIFY BACKEND ... 'tag.public_endpoint'/'tag.private_endpoint') or change the redirect policy", ev))
			return
		}
		r.unknown(g, name, "not probed"+why, "")
		return
	}
	f := diag.Finding{Object: r.hopObject(h), Evidence: ev}
	timeout := h.Outcome == snapshot.OutcomeConnectTimeout || h.Outcome == snapshot.OutcomeReadTimeout
	switch {
	case timeout && isBE && loads:
		f.Code = CodeStreamLoadHang
		where := "did not connect"
		if h.Outcome == snapshot.OutcomeReadTimeout {
			where = "connected and did not answer"
		}
		f.Summary = fmt.Sprintf("BE %s at %s %s within %s: a Stream Load redirected here hangs until the client's own timeout", h.Node, h.Target, where, fmtMs(h.TimeoutMs))
		f.Detail = "The FE's 307 names this address (" + h.Via + "); the FE's /api/health stays fine while loads hang."
		f.Next = "curl -v --max-time 5 http://" + h.Target + "/api/health   # from a loader host"
	case isBE && !loads && h.Outcome != snapshot.OutcomeUnauthorized && h.Outcome != snapshot.OutcomeForbidden:
		f.Code = CodeHopUnreachable
		f.Severity = diag.SeverityWarning
		f.Summary = fmt.Sprintf("BE %s at %s: %s%s (not where a Stream Load goes under policy %s)", h.Node, h.Target, h.Outcome, why, normPolicy(r.d.EffectivePolicy))
		f.Detail = "Lowered to a warning: the effective redirect policy sends loads elsewhere; a loader with another redirect-policy header would reach this address."
	case timeout || h.Outcome == snapshot.OutcomeRefused || h.Outcome == snapshot.OutcomeUnresolvable || h.Outcome == snapshot.OutcomeClosed || h.Outcome == snapshot.OutcomeError:
		f.Code = CodeHopUnreachable
		f.Summary = fmt.Sprintf("%s: %s%s", name, h.Outcome, why)
		if isBE {
			f.Summary = fmt.Sprintf("BE %s at %s: %s%s: a Stream Load redirected here fails", h.Node, h.Target, h.Outcome, why)
		}
		f.Next = "nc -vz " + strings.Replace(h.Target, ":", " ", 1)
	case h.Outcome == snapshot.OutcomeTLSMismatch || h.Outcome == snapshot.OutcomeTLSCertificate || h.Outcome == snapshot.OutcomeRedirected:
		f.Code = CodeTLSMismatch
		f.Summary = fmt.Sprintf("%s: %s%s", name, h.Outcome, why)
		if h.Location != "" {
			f.Summary += " (Location " + h.Location + ")"
		}
		f.Next = "dorisdiag doctor net --http-scheme https"
	case h.Outcome == snapshot.OutcomeUnauthorized || h.Outcome == snapshot.OutcomeForbidden:
		f.Code = CodeUnauthorized
		f.Summary = fmt.Sprintf("%s: reachable, %s (HTTP %d)%s", name, h.Outcome, h.Status, why)
	default:
		f.Code = CodeNodeNotReady
		f.Summary = fmt.Sprintf("%s: %s (HTTP %d)%s", name, h.Outcome, h.Status, why)
	}
	if f.Severity == 0 {
		f.Severity = f.Code.Severity()
	}
	r.raise(g, name, f)
}

func fmtMs(ms int64) string {
	if ms%1000 == 0 {
		return strconv.FormatInt(ms/1000, 10) + " s"
	}
	return strconv.FormatInt(ms, 10) + " ms"
}

func (r *run) clockChecks() {
	lim := r.o.MaxClockSkew.Milliseconds()
	for _, c := range r.d.Clocks {
		lo, hi := c.SkewBoundsMs()
		g := r.groupOf(c.Node, c.Target)
		name := "clock skew (" + c.Source + ")"
		bounds := fmt.Sprintf("server − this host in [%d, %d] ms", lo, hi)
		switch {
		case lo > lim || hi < -lim:
			skew := lo
			if hi < -lim {
				skew = hi
			}
			r.raise(g, name, diag.Finding{Code: CodeClockSkew, Severity: CodeClockSkew.Severity(), Object: diag.Object{Kind: "node", Name: firstNonEmpty(c.Node, c.Target)},
				Summary:  fmt.Sprintf("clock skew of at least %s against this host (%s), beyond %s", fmtMs(abs(skew)), bounds, fmtMs(lim)),
				Evidence: map[string]string{"skew_low_ms": strconv.FormatInt(lo, 10), "skew_high_ms": strconv.FormatInt(hi, 10), "source": c.Source},
				Next:     "synchronise the clocks (chronyc tracking)"})
		default:
			r.pass(g, name, bounds)
		}
	}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func (r *run) versionCheck() {
	byVersion := map[string][]string{}
	for _, n := range append(append([]snapshot.DoctorNode(nil), r.d.Frontends...), r.d.Backends...) {
		if n.Version == "" {
			continue
		}
		byVersion[n.Version] = append(byVersion[n.Version], strings.ToUpper(n.Kind)+" "+n.ID)
	}
	if len(byVersion) == 0 {
		if len(r.d.Frontends)+len(r.d.Backends) > 0 {
			r.unknown(groupCluster, "versions", "no node reported its version", "")
		}
		return
	}
	var vs []string
	for v := range byVersion {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	if len(vs) == 1 {
		r.pass(groupCluster, "versions", "every node runs "+vs[0])
		return
	}
	var parts []string
	for _, v := range vs {
		parts = append(parts, fmt.Sprintf("%s on %s", v, strings.Join(byVersion[v], ", ")))
	}
	r.raise(groupCluster, "versions", finding(CodeVersionMismatch, clusterObject,
		fmt.Sprintf("%d versions: %s", len(vs), strings.Join(parts, "; ")), "", "SHOW FRONTENDS; SHOW BACKENDS;",
		map[string]string{"versions": strings.Join(vs, ", ")}))
}

// gapChecks: what could not be read is an unknown line, never a pass nor a
// failure (a missing privilege names the privilege).
func (r *run) gapChecks() {
	for _, g := range r.d.Gaps {
		if g.Superseded != "" {
			r.info("this host", g.Source, "could not be read ("+g.Kind+"), superseded by "+g.Superseded, "")
			continue
		}
		s := g.Kind + ": " + g.Error
		next := ""
		if g.Kind == snapshot.GapPrivilege {
			s = "needs the " + g.Privilege + " privilege: " + g.Error
			next = doris.Note(doris.GrantGlobal(g.Privilege), "or run doctor as a user that has it")
		}
		r.unknown("this host", g.Source, s, next)
	}
}
