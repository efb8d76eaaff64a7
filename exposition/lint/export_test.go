package lint

// For the external tests of exposition/consumers kept in this directory
// (they run the consumers over this package's fuzz seeds and corpora).
var (
	FuzzSeeds     = fuzzSeeds
	ExpfmtVerdict = expfmtVerdict
	Payloads      = payloads
)
