// Package doctor judges what `dorisdiag doctor` read (snapshot.Doctor, issue
// 22): is this cluster configured for its changelog consumers, can this host
// reach every node a load or a scrape is sent to, and what do the Stream
// Load labels asked for mean. It is pure, like all of diag: the readings were
// taken by scrape.Doctor and are judged here, so a saved snapshot is judged
// the same way tomorrow.
//
// The result is one line per check, grouped by node (flutter doctor's
// shape: pass, warn, fail, unknown, worst first), and a finding for every
// line that is not a pass, with the code declared beside the rule that
// raises it: the config rules in checks_config*.go, the network verdicts in
// checks_net.go, the labels in checks_labels.go. A key a node did not print
// is "not on this build", never a default; a reading that could not be
// taken is "unknown", never a pass. The config rules are cheap and also run
// in check whenever a snapshot carries the doctor's configuration
// (ConfigFindings).
//
// The Doris facts behind every rule (which key, which default, which file)
// are in doris.ConfigKeys and docs/notes-doctor-evidence.md; docs/doctor.md
// is the user's page.
package doctor
