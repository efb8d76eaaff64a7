package snapshot

import (
	"fmt"
	"time"
)

// Doctor is what `dorisdiag doctor` saw of a cluster's configuration and of
// the network from the host it ran on (issue 22): each node's configuration
// keys, every hop a loader or a scrape takes with how it ended, clock
// readings, and Stream Load label states. It is measurements only — diag
// judges them (a key off, a hop that hangs, a skew) — so a saved snapshot,
// or a support bundle, is judged the same way tomorrow. Times here are the
// client's own clock (Unix ms), taken where noted; they are data for diag
// (a skew is server time against them), never its "now".
//
// Added in schema version 1 as an optional section (docs/snapshot.md
// "doctor"); absent when no doctor ran.
type Doctor struct {
	// TakenAtMs is when the doctor run began (client clock, Unix ms).
	TakenAtMs int64 `json:"taken_at_ms"`
	// TimeoutMs is the bound of every hop (--timeout).
	TimeoutMs int64 `json:"timeout_ms"`
	// Parts lists what ran: "config", "net", "labels".
	Parts []string `json:"parts"`

	// Session is the FE the MySQL session landed on.
	Session DoctorSession `json:"session"`
	// LoadHost is the FE host a loader addresses (the Host header of its
	// Stream Load): what the default redirect policy puts in a Location.
	LoadHost string `json:"load_host,omitempty"`
	// RedirectPolicy is the redirect-policy header the loader sends ("":
	// none, the FE's streamload_redirect_policy applies).
	RedirectPolicy string `json:"redirect_policy,omitempty"`
	// EffectivePolicy is the policy the BE hops were computed with, and
	// PolicySource where it came from ("header", the config reading's
	// source, or "unknown" when neither was known: every candidate address
	// is then probed).
	EffectivePolicy string `json:"effective_policy"`
	PolicySource    string `json:"policy_source"`

	Frontends []DoctorNode `json:"frontends,omitempty"` // SHOW FRONTENDS as doctor read it
	Backends  []DoctorNode `json:"backends,omitempty"`  // SHOW BACKENDS, with the Stream Load endpoints

	// Config holds one reading per node whose configuration was read.
	Config []ConfigReading `json:"config,omitempty"`
	// Hops is the connectivity matrix from this host.
	Hops []Hop `json:"hops,omitempty"`
	// NetElapsedMs is how long the connectivity matrix took, discovery
	// included (client clock); the run bounds it by 2 x TimeoutMs.
	NetElapsedMs int64 `json:"net_elapsed_ms,omitempty"`
	// Clocks are the server-time readings taken on the way.
	Clocks []ClockReading `json:"clocks,omitempty"`
	// Labels are the Stream Load label states asked for.
	Labels []LabelState `json:"labels,omitempty"`
	// Gaps lists what could not be read, each with why: a missing
	// privilege is a gap of kind "privilege" naming it, never a failure.
	Gaps []DoctorGap `json:"gaps"`
}

// DoctorSession is the FE the session is on.
type DoctorSession struct {
	Host string `json:"host"` // --host:--port as dialled
	// Name and IsMaster are from the SHOW FRONTENDS row whose
	// CurrentConnected is Yes; Known is false when no row said so.
	Name     string `json:"name,omitempty"`
	IsMaster bool   `json:"is_master,omitempty"`
	Known    bool   `json:"known"`
}

// DoctorNode is one FE or BE as doctor read it.
type DoctorNode struct {
	Kind      string `json:"kind"` // fe | be
	ID        string `json:"id"`   // FE Name, BackendId
	Host      string `json:"host"`
	HTTPPort  int    `json:"http_port,omitempty"`
	QueryPort int    `json:"query_port,omitempty"` // fe
	IsMaster  bool   `json:"is_master,omitempty"`  // fe
	Alive     bool   `json:"alive"`
	Version   string `json:"version,omitempty"`
	// PublicEndpoint and PrivateEndpoint are SHOW BACKENDS Tag's
	// public_endpoint and private_endpoint ("host:port"); absent on builds
	// and BEs without them.
	PublicEndpoint  string `json:"public_endpoint,omitempty"`
	PrivateEndpoint string `json:"private_endpoint,omitempty"`
	// Tag is the Tag column as read, when it did not parse (else omitted).
	Tag string `json:"tag,omitempty"`
}

// ConfigReading is the configuration of one node, as one source gave it.
type ConfigReading struct {
	Node     string `json:"node"` // fe | be
	ID       string `json:"id,omitempty"`
	Host     string `json:"host,omitempty"`
	IsMaster bool   `json:"is_master,omitempty"`
	// Source is "SHOW FRONTEND CONFIG", "SHOW BACKEND CONFIG",
	// "GET /rest/v1/config/fe/" or "GET /api/show_config".
	Source string `json:"source"`
	// Entries are the contract's keys the node printed (doris.ConfigKeys);
	// no other key is kept.
	Entries []ConfigEntry `json:"entries"`
	// Missing are the contract's keys this node did not print: not on this
	// build (known only when the source listed every key).
	Missing []string `json:"missing,omitempty"`
}

// ConfigEntry is one key as a node printed it.
type ConfigEntry struct {
	Key  string `json:"key"`  // the contract's name (no experimental_ prefix)
	Name string `json:"name"` // as printed (experimental_enable_feature_binlog)
	// Value is as printed; Masked when it is a mask (********), not the value.
	Value      string `json:"value"`
	Masked     bool   `json:"masked,omitempty"`
	Type       string `json:"type,omitempty"`
	Mutable    *bool  `json:"mutable,omitempty"`
	MasterOnly *bool  `json:"master_only,omitempty"`
}

// Hop kinds.
const (
	HopFEQuery = "fe_query" // MySQL: connect, handshake, SELECT 1
	HopFEHTTP  = "fe_http"  // GET /api/health on an FE's HTTP port
	HopFETSO   = "fe_tso"   // GET /api/tso on the Master
	HopBEHTTP  = "be_http"  // GET /api/health where a Stream Load redirect sends a loader
)

// Hop outcomes. A timeout is named by where it stopped: connect_timeout
// (no TCP connection within the bound — a Stream Load redirected there
// hangs until the client's own timeout), read_timeout (connected, no
// answer: the same hang).
const (
	OutcomeOK             = "ok"
	OutcomeConnectTimeout = "connect_timeout"
	OutcomeReadTimeout    = "read_timeout"
	OutcomeRefused        = "refused"
	OutcomeUnresolvable   = "unresolvable"
	OutcomeTLSMismatch    = "tls_mismatch"    // one side speaks TLS, the other not
	OutcomeTLSCertificate = "tls_certificate" // TLS, but the certificate is not trusted
	OutcomeUnauthorized   = "unauthorized"    // 401 / MySQL 1045: reachable, credentials refused or missing
	OutcomeForbidden      = "forbidden"       // 403: reachable, not allowed
	OutcomeNotReady       = "not_ready"       // answered: the node says it is not serving
	OutcomeRedirected     = "redirected"      // answered 3xx (Location kept): e.g. http_port redirecting to the HTTPS port
	OutcomeHTTPError      = "http_error"      // answered with another error
	OutcomeClosed         = "closed"          // the peer closed the connection
	OutcomeError          = "error"
	OutcomeSkipped        = "skipped" // not probed (no address known, or the FE answers an error instead of a redirect)
)

// Hop is one network hop from this host.
type Hop struct {
	Kind string `json:"kind"` // HopFEQuery, …
	Node string `json:"node,omitempty"`
	// Target is the host:port dialled; URL the request for HTTP hops.
	Target string `json:"target,omitempty"`
	URL    string `json:"url,omitempty"`
	// Via says how the address was chosen (the redirect rule for a BE).
	Via string `json:"via,omitempty"`
	// Policies are, for a BE hop, the redirect policies that send a Stream
	// Load to this address ("default" for none; doris.StreamLoadRedirect):
	// the FE's streamload_redirect_policy, or the loader's header, picks
	// the one that applies.
	Policies []string `json:"policies,omitempty"`
	Outcome  string   `json:"outcome"`
	// Reachable: something answered (any HTTP status, a MySQL error).
	Reachable bool   `json:"reachable"`
	Status    int    `json:"status,omitempty"`   // HTTP status
	Location  string `json:"location,omitempty"` // of a 3xx answer
	Error     string `json:"error,omitempty"`
	ElapsedMs int64  `json:"elapsed_ms"`
	TimeoutMs int64  `json:"timeout_ms"`
}

// ClockReading is one server time read over the network, with the client
// clock before the request and after the answer (Unix ms).
type ClockReading struct {
	// Source is "Date header" (of an HTTP answer; 1 s resolution) or
	// "GET /api/tso" (the TSO's physical time).
	Source string `json:"source"`
	Node   string `json:"node,omitempty"`
	Target string `json:"target,omitempty"`
	// ServerMs is the server's time; the true instant lies in
	// [ServerMs, ServerMs+ResolutionMs).
	ServerMs     int64 `json:"server_ms"`
	ResolutionMs int64 `json:"resolution_ms"`
	SentMs       int64 `json:"sent_ms"`
	ReceivedMs   int64 `json:"received_ms"`
}

// SkewBoundsMs bounds server clock minus client clock: the server read its
// clock at some client instant in [SentMs, ReceivedMs].
func (c ClockReading) SkewBoundsMs() (lo, hi int64) {
	return c.ServerMs - c.ReceivedMs, c.ServerMs + c.ResolutionMs - c.SentMs
}

// LabelState is one Stream Load label's state (GET /api/{db}/get_load_state).
type LabelState struct {
	DB    string `json:"db"`
	Label string `json:"label"`
	// State is the TransactionStatus: UNKNOWN (never loaded, or removed
	// after streaming_label_keep_max_second / label_num_threshold), PREPARE,
	// PRECOMMITTED, COMMITTED, VISIBLE, ABORTED; "" when not read.
	State string `json:"state,omitempty"`
	// Shape is the answer's shape: "envelope" ({code,msg,data}) or
	// "result" ({status,msg,state}).
	Shape  string `json:"shape,omitempty"`
	Target string `json:"target,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Gap kinds.
const (
	GapPrivilege   = "privilege"   // refused for a missing privilege (named)
	GapUnreachable = "unreachable" // the node did not answer
	GapNotOnBuild  = "not_on_build"
	GapError       = "error"
)

// DoctorGap is one thing doctor could not read.
type DoctorGap struct {
	Source string `json:"source"`
	Kind   string `json:"kind"`
	// Privilege names the missing privilege (ADMIN, NODE) for kind privilege.
	Privilege string `json:"privilege,omitempty"`
	Target    string `json:"target,omitempty"` // statement or URL
	Error     string `json:"error"`
	// Superseded names the source that gave the same facts instead.
	Superseded string `json:"superseded,omitempty"`
}

// validateDoctor keeps only readings diag can use: a clock reading whose
// client instants are out of order or out of any real range is left out
// and counted in malformed, never used to compute a skew.
func (s *Snapshot) validateDoctor() {
	d := s.Doctor
	if d == nil {
		return
	}
	if d.Gaps == nil {
		d.Gaps = []DoctorGap{}
	}
	kept := d.Clocks[:0]
	for i, c := range d.Clocks {
		why := ""
		switch {
		case c.SentMs < minClockMs || c.SentMs > maxClockMs || c.ReceivedMs < minClockMs || c.ReceivedMs > maxClockMs:
			why = "client time outside any real range"
		case c.ServerMs < minClockMs || c.ServerMs > maxClockMs:
			why = "server time outside any real range"
		case c.ReceivedMs < c.SentMs:
			why = "received before sent"
		case c.ResolutionMs < 0 || c.ResolutionMs > int64(time.Minute/time.Millisecond):
			why = "resolution outside 0..60000 ms"
		}
		if why != "" {
			s.malformed(Malformed{Source: "doctor", Row: fmt.Sprintf("$.doctor.clocks[%d]", i), Column: "clocks",
				Value: fmt.Sprintf("%d/%d/%d", c.SentMs, c.ServerMs, c.ReceivedMs), Error: why + ": left out"})
			continue
		}
		kept = append(kept, c)
	}
	d.Clocks = kept
}
