// Package doctor is the doctor's reads (Doctor, issue 22): the cluster's
// configuration for its changelog consumers, the connectivity matrix from
// this host to every node a load or a scrape is sent to, and label states,
// into a snapshot.Doctor that diag judges. It reads over scrape (the SQL
// client, HTTP GET, the dial guard) and never imports scrape/collect
// (docs/architecture.md "Inside scrape").
package doctor
