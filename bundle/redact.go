package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dorisdiag/dorisdiag/doris"
)

// The redaction chokepoint (docs/security.md "Support bundles"): every
// member of a bundle passes through Redactor.apply before it enters the
// archive (Writer.add is the only caller), so a rule is applied once and
// counted once. The rules, in the order they run on each text:
//
//   - password: every occurrence of the session's password (4 characters
//     or more; a shorter one is not searched for and the manifest says so);
//   - authorization_header: the value after an Authorization or
//     Proxy-Authorization name;
//   - url_userinfo: the user info of every URL (scheme://user:pass@host →
//     scheme://host);
//   - sensitive_config: the value of a configuration key named sensitive
//     (SensitiveKey) — in JSON an object whose key/name field names such a
//     key has its value field masked, in text `key = value`, `key: value`;
//   - sql_text: SQL and error text (mv_infos' QuerySql, tasks' ErrorMsg)
//     cut to SQLLength characters;
//   - names (--redact-names): every database, table, stream, MV and host
//     name the bundle learnt replaced by its pseudonym.
//
// No table data is ever read (the collector reads system tables and
// /metrics only), so no rule exists for it.

// Rule names, as the manifest lists them.
const (
	RulePassword        = "password"
	RuleAuthorization   = "authorization_header"
	RuleURLUserInfo     = "url_userinfo"
	RuleSensitiveConfig = "sensitive_config"
	RuleSQLText         = "sql_text"
	RuleNames           = "names"
)

// Masked is what a redacted value becomes.
const Masked = "<redacted>"

// minPassword is the shortest password searched for: a shorter one would
// mark every word that holds its letters.
const minPassword = 4

// DefaultSQLLength is where SQL text is cut (pgmetrics' --sql-length).
const DefaultSQLLength = 500

// Options are a Redactor's inputs.
type Options struct {
	Password    string
	SQLLength   int  // default DefaultSQLLength
	RedactNames bool // --redact-names
}

// Name kinds of the pseudonyms.
const (
	KindDB     = "db"
	KindTable  = "table"
	KindStream = "stream"
	KindMV     = "mv"
	KindHost   = "host"
)

// kindOrder is the order a name's kind is chosen in when one name is seen
// as two kinds (a table and a database both named x get one pseudonym).
var kindOrder = map[string]int{KindHost: 0, KindDB: 1, KindMV: 2, KindStream: 3, KindTable: 4}

// Redactor applies the rules and counts what each changed.
type Redactor struct {
	o      Options
	counts map[string]int
	// names: real → pseudonym; kinds: real → kind. Learnt before any
	// member is written (Learn*), so every member sees the same map.
	names  map[string]string
	kinds  map[string]string
	next   map[string]int
	namesR *regexp.Regexp // the names, longest first; nil when none
	dirty  bool
}

// NewRedactor returns a Redactor with the rules of o.
func NewRedactor(o Options) *Redactor {
	if o.SQLLength <= 0 {
		o.SQLLength = DefaultSQLLength
	}
	return &Redactor{o: o, counts: map[string]int{}, names: map[string]string{}, kinds: map[string]string{}, next: map[string]int{}}
}

// PasswordSearched says whether the password rule can apply (a password of
// at least minPassword characters was given).
func (r *Redactor) PasswordSearched() bool {
	return utf8.RuneCountInString(r.o.Password) >= minPassword
}

// Counts is how many values each rule replaced, never the values.
func (r *Redactor) Counts() map[string]int {
	out := make(map[string]int, len(r.counts))
	for k, v := range r.counts {
		out[k] = v
	}
	return out
}

// SQLLength is where SQL text is cut.
func (r *Redactor) SQLLength() int { return r.o.SQLLength }

// Learn records a name of kind to be pseudonymised (with RedactNames).
// The empty name, and a name already known, change nothing.
func (r *Redactor) Learn(kind, name string) {
	if !r.o.RedactNames || strings.TrimSpace(name) == "" || notAName[name] {
		return
	}
	if old, ok := r.kinds[name]; ok && kindOrder[old] <= kindOrder[kind] {
		return
	}
	if _, ok := r.names[name]; ok {
		return // the first pseudonym stays: it may already be in a member
	}
	r.kinds[name] = kind
	r.next[kind]++
	sep := "_"
	if kind == KindHost {
		sep = "-" // a host name, not an identifier
	}
	r.names[name] = kind + sep + strconv.Itoa(r.next[kind])
	r.dirty = true
}

// notAName are the sentinels Doris prints where a name is absent.
var notAName = map[string]bool{doris.SensitiveMask: true, "N/A": true, `\N`: true, "NULL": true, "null": true, "-": true}

// LearnHostPort learns the host of a host:port (or a bare host).
func (r *Redactor) LearnHostPort(hp string) {
	h := hp
	if i := strings.LastIndex(hp, ":"); i > 0 && !strings.Contains(hp[:i], ":") {
		h = hp[:i]
	}
	h = strings.Trim(h, "[]")
	r.Learn(KindHost, h)
}

// MappingEntry is one pseudonym and the name it stands for.
type MappingEntry struct {
	Kind      string `json:"kind"`
	Pseudonym string `json:"pseudonym"`
	Name      string `json:"name"`
}

// Mapping lists every pseudonym, by kind then pseudonym.
func (r *Redactor) Mapping() []MappingEntry {
	out := make([]MappingEntry, 0, len(r.names))
	for n, p := range r.names {
		out = append(out, MappingEntry{Kind: r.kinds[n], Pseudonym: p, Name: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return natLess(out[i].Pseudonym, out[j].Pseudonym)
	})
	return out
}

func natLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// Content kinds of a member.
const (
	contentJSON = "json"
	contentText = "text"
)

// apply is the chokepoint: data of kind (JSON or text) with every rule
// applied. JSON stays JSON (numbers as written, keys unchanged).
func (r *Redactor) apply(kind string, data []byte) ([]byte, error) {
	if kind == contentJSON {
		return r.json(data)
	}
	return []byte(r.Text(string(data))), nil
}

// json applies the rules to every string value of a JSON document, token
// by token: keys and their order unchanged (the snapshot decoder reads its
// sections in the order Write writes them), numbers as written, indented.
// Memory is the input and the output, never a tree of the document. A flat
// object (scalars only: a configuration row) is held until its end, so
// its key/name field decides whether its value field is masked, whatever
// their order.
func (r *Redactor) json(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	out := &jsonOut{}
	out.b.Grow(len(data) + len(data)/16)
	if err := r.value(dec, out, "", 0); err != nil {
		return nil, fmt.Errorf("redacting: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("redacting: data after the JSON document")
	}
	out.b.WriteByte('\n')
	return out.b.Bytes(), nil
}

// jsonOut writes indented JSON.
type jsonOut struct {
	b       bytes.Buffer
	scratch bytes.Buffer
	enc     *json.Encoder
}

func (o *jsonOut) str(s string) {
	if o.enc == nil {
		o.enc = json.NewEncoder(&o.scratch)
		o.enc.SetEscapeHTML(false)
	}
	o.scratch.Reset()
	_ = o.enc.Encode(s) // a string always encodes
	o.b.Write(bytes.TrimSuffix(o.scratch.Bytes(), []byte("\n")))
}

func (o *jsonOut) scalar(v any) {
	switch t := v.(type) {
	case string:
		o.str(t)
	case json.Number:
		o.b.WriteString(t.String())
	case bool:
		if t {
			o.b.WriteString("true")
		} else {
			o.b.WriteString("false")
		}
	default:
		o.b.WriteString("null")
	}
}

// elem starts the n-th element of a container at depth.
func (o *jsonOut) elem(n, depth int) {
	if n > 0 {
		o.b.WriteByte(',')
	}
	o.b.WriteByte('\n')
	for i := 0; i < depth; i++ {
		o.b.WriteString("  ")
	}
}

// end closes a container of n elements at depth.
func (o *jsonOut) end(n, depth int, delim byte) {
	if n > 0 {
		o.elem(0, depth)
	}
	o.b.WriteByte(delim)
}

// sqlFields are the JSON fields (lower case) whose text is SQL or a
// server's error text about it: cut to SQLLength.
var sqlFields = map[string]bool{"query_sql": true, "querysql": true, "error_msg": true, "errormsg": true}

// value copies one JSON value from dec to out with the rules applied;
// field is the name of the field holding it ("" at the top).
func (r *Redactor) value(dec *json.Decoder, out *jsonOut, field string, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		return r.container(dec, out, t, field, depth)
	case string:
		out.scalar(r.stringValue(t, field))
	default:
		out.scalar(t)
	}
	return nil
}

// stringValue is a string field's value with the rules applied.
func (r *Redactor) stringValue(s, field string) string {
	if SensitiveKey(field) || isAuthorization(field) {
		return r.mask(s, RuleSensitiveConfig, isAuthorization(field))
	}
	if sqlFields[strings.ToLower(field)] {
		s = r.cutSQL(s)
	}
	return r.Text(s)
}

type jsonPair struct {
	key string
	val any
}

// object copies one object (its '{' read). Scalar pairs are held until the
// object ends or a container value comes, so a configuration row is judged
// whole: {Key|Name: a sensitive key, Value: v} masks v.
func (r *Redactor) object(dec *json.Decoder, out *jsonOut, depth int) error {
	out.b.WriteByte('{')
	n := 0
	var held []jsonPair
	sensitiveRow := false
	flush := func() {
		for _, p := range held {
			out.elem(n, depth+1)
			out.str(p.key)
			out.b.WriteString(": ")
			if s, ok := p.val.(string); ok {
				if sensitiveRow && strings.EqualFold(p.key, "value") {
					out.scalar(r.mask(s, RuleSensitiveConfig, false))
				} else {
					out.scalar(r.stringValue(s, p.key))
				}
			} else {
				out.scalar(p.val)
			}
			n++
		}
		held = held[:0]
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := kt.(string)
		if !ok {
			return fmt.Errorf("object key %v", kt)
		}
		vt, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := vt.(json.Delim); ok {
			flush()
			out.elem(n, depth+1)
			out.str(key)
			out.b.WriteString(": ")
			if err := r.container(dec, out, d, key, depth+1); err != nil {
				return err
			}
			n++
			continue
		}
		if s, ok := vt.(string); ok && (strings.EqualFold(key, "key") || strings.EqualFold(key, "name")) && SensitiveKey(s) {
			sensitiveRow = true
		}
		held = append(held, jsonPair{key, vt})
	}
	flush()
	if _, err := dec.Token(); err != nil { // '}'
		return err
	}
	out.end(n, depth, '}')
	return nil
}

// container copies an array or object whose opening delimiter d was read.
func (r *Redactor) container(dec *json.Decoder, out *jsonOut, d json.Delim, field string, depth int) error {
	if d == '{' {
		return r.object(dec, out, depth)
	}
	out.b.WriteByte('[')
	n := 0
	for dec.More() {
		out.elem(n, depth+1)
		if err := r.value(dec, out, field, depth+1); err != nil {
			return err
		}
		n++
	}
	if _, err := dec.Token(); err != nil { // ']'
		return err
	}
	out.end(n, depth, ']')
	return nil
}

func isAuthorization(k string) bool {
	k = strings.ToLower(k)
	return k == "authorization" || k == "proxy-authorization"
}

// mask replaces a sensitive value (an empty one or the server's own mask
// stays: nothing is hidden there, nothing is counted).
func (r *Redactor) mask(s, rule string, auth bool) string {
	if s == "" || s == doris.SensitiveMask || s == Masked {
		return s
	}
	if auth {
		rule = RuleAuthorization
	}
	r.counts[rule]++
	return Masked
}

// cutSQL cuts s to SQLLength characters, saying so.
func (r *Redactor) cutSQL(s string) string {
	if utf8.RuneCountInString(s) <= r.o.SQLLength {
		return s
	}
	r.counts[RuleSQLText]++
	rs := []rune(s)
	return string(rs[:r.o.SQLLength]) + fmt.Sprintf("… [cut: %d characters]", len(rs))
}

var (
	authRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(\b(?:proxy-)?authorization\b["']?\s*[:=]\s*["']?)([^"'\r\n,}]*)`)
	})
	userinfoRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)[^/?#@\s"'\x60]*@`) })
	// keyValueRE: key = value or key: value (the key possibly quoted), the
	// value quoted or up to a separator. SensitiveKey decides.
	keyValueRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`([A-Za-z0-9_.\-]+)(["']?\s*[=:]\s*)("[^"\r\n]*"|'[^'\r\n]*'|[^\s,;&}\])"']+)`)
	})
)

// Text applies the text rules to s (every string of a JSON member, every
// line of a text member).
func (r *Redactor) Text(s string) string {
	s = userinfoRE().ReplaceAllStringFunc(s, func(m string) string {
		r.counts[RuleURLUserInfo]++
		return userinfoRE().FindStringSubmatch(m)[1]
	})
	if r.PasswordSearched() {
		if n := strings.Count(s, r.o.Password); n > 0 {
			r.counts[RulePassword] += n
			s = strings.ReplaceAll(s, r.o.Password, Masked)
		}
	}
	s = authRE().ReplaceAllStringFunc(s, func(m string) string {
		sub := authRE().FindStringSubmatch(m)
		if sub[2] == "" || sub[2] == Masked {
			return m
		}
		r.counts[RuleAuthorization]++
		return sub[1] + Masked
	})
	if strings.ContainsAny(s, "=:") {
		s = keyValueRE().ReplaceAllStringFunc(s, func(m string) string {
			sub := keyValueRE().FindStringSubmatch(m)
			if !SensitiveKey(sub[1]) {
				return m
			}
			v := strings.Trim(sub[3], `"'`)
			if v == "" || v == doris.SensitiveMask || v == Masked {
				return m
			}
			r.counts[RuleSensitiveConfig]++
			q := ""
			if sub[3] != v {
				q = sub[3][:1]
			}
			return sub[1] + sub[2] + q + Masked + q
		})
	}
	return r.pseudonymise(s)
}

// pseudonymise replaces every whole known name: bounded on both sides by a
// character that cannot continue it (not a letter, digit, '_' or '$'), so
// "orders" is replaced in `db`.`orders` and orders{…} but not in
// "my_orders" (another name, replaced only if it is known itself).
func (r *Redactor) pseudonymise(s string) string {
	if len(r.names) == 0 {
		return s
	}
	if r.dirty || r.namesR == nil {
		all := make([]string, 0, len(r.names))
		for n := range r.names {
			all = append(all, n)
		}
		sort.Slice(all, func(i, j int) bool {
			if len(all[i]) != len(all[j]) {
				return len(all[i]) > len(all[j])
			}
			return all[i] < all[j]
		})
		for i, n := range all {
			all[i] = regexp.QuoteMeta(n)
		}
		r.namesR = regexp.MustCompile(strings.Join(all, "|"))
		r.dirty = false
	}
	var b strings.Builder
	done := 0
	for from := 0; from < len(s); {
		loc := r.namesR.FindStringIndex(s[from:])
		if loc == nil {
			break
		}
		i, j := from+loc[0], from+loc[1]
		if identBefore(s[:i]) || identAfter(s[j:]) {
			from = i + 1
			continue
		}
		b.WriteString(s[done:i])
		b.WriteString(r.names[s[i:j]])
		r.counts[RuleNames]++
		done, from = j, j
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

func identRune(c rune) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf
}

func identBefore(s string) bool {
	c, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && identRune(c)
}

func identAfter(s string) bool {
	c, n := utf8.DecodeRuneInString(s)
	return n > 0 && identRune(c)
}

// sensitiveRE: the configuration keys whose value is a secret —
// ConfigBase's sensitive keys (auth_token, fe_meta_auth_token: masked by
// newer builds only) and any key naming a password, secret, token or
// access/secret key (mysql_ssl_default_*_password included).
var sensitiveRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(password|passwd|secret|token|credential|private_key|(^|_)(ak|sk)$)`)
})

// SensitiveKey says whether a configuration key (or a JSON field) names a
// secret.
func SensitiveKey(k string) bool { return len(k) < 200 && sensitiveRE().MatchString(k) }
