package scale

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"testing"
	"time"
)

// cpuByLabel sums a profile's last sample value by the daemon label, and
// puts samples without one under Other (the profile.proto encoding: a
// Sample's values packed, its labels as messages of string indexes).
func TestCPUByLabel(t *testing.T) {
	label := msg(varint(1, 1), varint(2, 2)) // daemon=schedd
	prof := cat(
		bytesField(6, []byte("")), bytesField(6, []byte("daemon")), bytesField(6, []byte("schedd")),
		bytesField(2, cat(bytesField(2, cat(uv(1), uv(uint64(10*time.Millisecond)))), bytesField(3, label))),
		bytesField(2, cat(bytesField(2, cat(uv(3), uv(uint64(30*time.Millisecond)))), bytesField(3, label))),
		bytesField(2, bytesField(2, cat(uv(2), uv(uint64(5*time.Millisecond))))),
	)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(prof)
	w.Close()
	got, err := cpuByLabel(gz.Bytes(), "daemon")
	if err != nil {
		t.Fatal(err)
	}
	if got["schedd"] != 40*time.Millisecond || got[Other] != 5*time.Millisecond || len(got) != 2 {
		t.Errorf("cpuByLabel = %v, want schedd 40ms, other 5ms", got)
	}
	if _, err := cpuByLabel([]byte("not gzip"), "daemon"); err == nil {
		t.Error("a profile that is not gzip: no error")
	}
}

func uv(n uint64) []byte { return binary.AppendUvarint(nil, n) }

func varint(field int, n uint64) []byte { return cat(uv(uint64(field)<<3), uv(n)) }

func bytesField(field int, b []byte) []byte {
	return cat(uv(uint64(field)<<3|2), uv(uint64(len(b))), b)
}

func msg(parts ...[]byte) []byte { return cat(parts...) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
