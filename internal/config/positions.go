package config

import "strings"

// keyPositions finds where each key of a TOML text is defined, so that
// errors about a key (unknown, invalid) can name its line and column. The
// TOML library reports positions only for syntax errors. It understands
// tables, arrays of tables, dotted and quoted keys, and skips values that
// span lines (arrays, multi-line strings); the text has already parsed.
func keyPositions(text string) map[string]Position {
	out := map[string]Position{}
	lines := strings.Split(text, "\n")
	var table []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimLeft(line, " \t")
		col := len(line) - len(trimmed) + 1
		switch {
		case trimmed == "" || trimmed[0] == '#':
		case trimmed[0] == '[':
			inner := strings.Trim(strings.SplitN(trimmed, "]", 2)[0], "[ \t")
			if strings.HasPrefix(trimmed, "[[") {
				inner = strings.Trim(strings.SplitN(trimmed, "]]", 2)[0], "[ \t")
			}
			table = splitKey(inner)
			out[strings.Join(table, ".")] = Position{Line: i + 1, Col: col}
		default:
			key, value, ok := strings.Cut(trimmed, "=")
			if !ok {
				continue
			}
			path := append(append([]string(nil), table...), splitKey(key)...)
			out[strings.Join(path, ".")] = Position{Line: i + 1, Col: col}
			i = skipValue(lines, i, strings.TrimSpace(value))
		}
	}
	return out
}

// splitKey splits a dotted key, unquoting quoted parts.
func splitKey(k string) []string {
	var parts []string
	var cur strings.Builder
	var quote byte
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		case c != ' ' && c != '\t':
			cur.WriteByte(c)
		}
	}
	return append(parts, strings.TrimSpace(cur.String()))
}

// skipValue returns the index of the last line of the value that starts on
// line i with the text v.
func skipValue(lines []string, i int, v string) int {
	for _, q := range []string{`"""`, `'''`} {
		if strings.HasPrefix(v, q) && strings.Count(v, q) < 2 {
			for i++; i < len(lines) && !strings.Contains(lines[i], q); i++ {
			}
			return i
		}
	}
	depth := bracketDepth(v)
	for depth > 0 && i+1 < len(lines) {
		i++
		depth += bracketDepth(lines[i])
	}
	return i
}

// bracketDepth counts unmatched [ and { outside strings and comments.
func bracketDepth(s string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return depth
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		}
	}
	return depth
}
