package exposition

import (
	"encoding/binary"
	"math/bits"
)

// The duplicate-series hash: a 64-bit multiply-mix hash (wyhash's shape)
// over a label pair's bytes, 8 at a time, inlined into the line's loop
// instead of a hash call per name and per value. The seed is random per
// Lint, so a payload cannot be written to collide on purpose.

const (
	hashK0 = 0xa0761d6478bd642f
	hashK1 = 0xe7037ed1a0b428db
	hashK2 = 0x8ebc6af09c88c6e3
)

func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashBytes hashes b with seed.
func hashBytes(seed uint64, b []byte) uint64 {
	n, all := len(b), b
	h := seed ^ uint64(n)*hashK0
	for len(b) > 8 {
		h = mum(h^binary.LittleEndian.Uint64(b), hashK1)
		b = b[8:]
	}
	var w uint64
	switch {
	case n >= 8:
		// the last 8 bytes, overlapping what the loop read
		w = binary.LittleEndian.Uint64(all[n-8:])
	case len(b) >= 4:
		w = uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))<<32
	default:
		for i, c := range b {
			w |= uint64(c) << (8 * i)
		}
	}
	return mum(h^w, hashK2)
}
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
