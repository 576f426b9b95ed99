package submit

import (
	"math"
	"strconv"
	"strings"
)

// fullPath returns name made absolute against dir, with runs of slashes
// collapsed, as condor_submit's full_path does (it does not resolve "..").
func fullPath(name, dir string) string {
	if strings.HasPrefix(name, "/") {
		return compressPath(name)
	}
	return compressPath(dir + "/" + name)
}

// joinPath is fullPath for a possibly empty name.
func joinPath(dir, name string) string {
	if name == "" {
		return ""
	}
	return fullPath(name, dir)
}

// compressPath collapses runs of slashes into one.
func compressPath(p string) string {
	if !strings.Contains(p, "//") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && i > 0 && p[i-1] == '/' {
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// resolveIwd returns the initial directory: initialdir made absolute
// against the submit directory, or the submit directory itself.
func resolveIwd(initialdir, submitDir string) string {
	if initialdir == "" {
		return compressPath(submitDir)
	}
	return fullPath(initialdir, submitDir)
}

// isURL reports whether a file name is a URL (scheme://...).
func isURL(name string) bool {
	i := strings.Index(name, "://")
	if i <= 0 {
		return false
	}
	for _, c := range name[:i] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// parseQuantity reads a size with an optional unit suffix, as HTCondor's
// request_memory and request_disk take it: a number, then optionally K,
// M, G, T or P (each a power of 1024, optionally followed by B) or B for
// bytes. A number without a unit is already in units of base bytes. The
// result is in units of base, rounded up. ok is false when s is not a
// quantity (it is then taken as a ClassAd expression).
func parseQuantity(s string, base float64) (n int64, ok bool) {
	s = trimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || i == 0 {
		return 0, false
	}
	unit := strings.ToUpper(trimSpace(s[i:]))
	mult, ok := unitScale(unit, base)
	if !ok {
		return 0, false
	}
	v := math.Ceil(num * mult / base)
	if v > math.MaxInt64/2 {
		return 0, false
	}
	return int64(v), true
}

// unitScale returns the number of bytes a unit stands for.
func unitScale(unit string, base float64) (float64, bool) {
	if unit == "" {
		return base, true
	}
	if unit == "B" {
		return 1, true
	}
	unit = strings.TrimSuffix(unit, "B")
	if len(unit) != 1 {
		return 0, false
	}
	i := strings.IndexByte("KMGTP", unit[0])
	if i < 0 {
		return 0, false
	}
	return math.Pow(1024, float64(i+1)), true
}

// commaList splits a file list at commas, trimming white space and
// dropping empty entries, as HTCondor's comma-delimited string lists do.
func commaList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = trimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// stripQuotes trims s and removes one pair of surrounding double quotes.
func stripQuotes(s string) string {
	s = trimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}
