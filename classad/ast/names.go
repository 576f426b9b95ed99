package ast

// Attribute and function names are case-insensitive in ASCII only, as
// HTCondor compares them with strcasecmp.

// EqualFold reports whether a and b are equal ignoring ASCII case.
func EqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x|0x20 != y|0x20 || x|0x20 < 'a' || x|0x20 > 'z' {
			return false
		}
	}
	return true
}

// FoldHash returns a hash of name that is the same for names equal under
// EqualFold (FNV-1a over the lower-cased bytes).
func FoldHash(name string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			c |= 0x20
		}
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

// Lower returns name with ASCII letters lower-cased, without allocating when
// it is already lower case.
func Lower(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= 'A' && c <= 'Z' {
			b := []byte(name)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] |= 0x20
				}
			}
			return string(b)
		}
	}
	return name
}
