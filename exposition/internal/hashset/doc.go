// Package hashset holds the linter's memory-bounded sets over 64-bit
// hashes: the families beyond Options.MaxFamilies (a name hash and 2 bytes
// of state each), their interned names, and the series seen (a hash and the
// line of first sight each, 12 bytes a series instead of its text). Open
// addressing, no allocation per entry; 0 marks an empty slot, so a caller
// never inserts the hash 0. It imports nothing of the project.
package hashset
