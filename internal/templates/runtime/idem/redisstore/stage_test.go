package redisstore

import "testing"

func TestStageKey(t *testing.T) {
	for _, tc := range []struct {
		k, want string // want "" when there is no stage key in k's slot
	}{
		{"idem:order-1", "idem:{idem:order-1}:stage:TOKEN"},
		{"idem:{tenant}:order-1", "idem:{tenant}:order-1:stage:TOKEN"},
		{"idem:a{b}c{d}", "idem:a{b}c{d}:stage:TOKEN"},
		{"idem:a{}b{c}", ""}, // an empty tag: the whole key is hashed, and it holds braces
		{"idem:a{b", ""},
		{"idem:a}b", ""},
		{"idem:a}b{c}", "idem:a}b{c}:stage:TOKEN"},
	} {
		var got string
		ok := stageKey(&got, "idem:", tc.k, []byte("TOKEN"))
		if !ok {
			got = ""
		}
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("stageKey(%q) = %q, %v; want %q", tc.k, got, ok, tc.want)
		}
		if ok && slot(got) != slot(tc.k) {
			t.Errorf("stageKey(%q) = %q, in slot %d, not the key's %d", tc.k, got, slot(got), slot(tc.k))
		}
	}
}

// slot is Redis Cluster's hash slot of key: CRC16 (XMODEM) of its hash tag, or of the whole key
// when it has none, modulo 16384.
func slot(key string) uint16 {
	for i := 0; i < len(key); i++ {
		if key[i] == '{' {
			for j := i + 1; j < len(key); j++ {
				if key[j] == '}' {
					if j > i+1 {
						key = key[i+1 : j]
					}
					break
				}
			}
			break
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc % 16384
}
