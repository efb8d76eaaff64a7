//go:build !race

package collect_test

const raceEnabled = false
