package queue

import (
	"slices"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// A job leaving the queue is written whole to the history. Most of its
// ad is its cluster's, the same for every job of the cluster: each
// cluster attribute is encoded once, and a job's record is those
// encodings with the job's own attributes encoded over them. The bytes
// are those View.AppendJSON writes (TestHistoryJSON holds them equal).

// clusterJSON holds a cluster ad's attributes encoded, each as
// `"Name": value`, for the ad they were encoded from.
type clusterJSON struct {
	ad    *classad.Ad
	attrs [][]byte
	size  int // the attributes' bytes, with a comma each
}

// encoded returns the cluster ad's attributes encoded (the ad is replaced,
// never changed in place, so the encoding stays valid while it is the
// same ad). Call it with the queue locked for writing.
func (c *Cluster) encoded() [][]byte {
	if c.json.ad == c.ad {
		return c.json.attrs
	}
	attrs := make([][]byte, c.ad.Len())
	var rec ast.Record
	for i := range attrs {
		rec.Attrs = append(rec.Attrs[:0], ast.Attr{At: ast.NoPos, Name: c.ad.Name(i), Value: c.ad.Expr(i)})
		out := ast.AppendJSON(nil, &rec, false)
		attrs[i] = out[1 : len(out)-1] // without the braces
	}
	c.json = clusterJSON{ad: c.ad, attrs: attrs}
	for _, a := range attrs {
		c.json.size += len(a) + 1
	}
	return attrs
}

// appendHistoryJSON appends a job's whole ad as JSON. over is scratch
// space.
func appendHistoryJSON(buf []byte, c *Cluster, own *classad.Ad, over *[]int) []byte {
	// ov[ci] is the own attribute over cluster attribute ci, and
	// ov[len(attrs)+i] the cluster attribute own attribute i is over (-1:
	// none): each name is looked up once.
	attrs := c.encoded()
	ov := (*over)[:0]
	for range len(attrs) + own.Len() {
		ov = append(ov, -1)
	}
	for i := range own.Len() {
		if ci := c.ad.Index(own.Name(i)); ci >= 0 {
			ov[ci], ov[len(attrs)+i] = i, ci
		}
	}
	*over = ov
	var rec ast.Record
	buf = slices.Grow(buf, c.json.size+64*own.Len())
	buf = append(buf, '{')
	n := 0
	sep := func() {
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
	}
	one := func(name string, e ast.Expr) {
		sep()
		if ast.IsPlainName(name) { // nothing to escape: the name as it is
			buf = append(append(append(buf, '"'), name...), `": `...)
			buf = ast.AppendJSON(buf, e, false)
			return
		}
		rec.Attrs = append(rec.Attrs[:0], ast.Attr{At: ast.NoPos, Name: name, Value: e})
		start := len(buf)
		buf = ast.AppendJSON(buf, &rec, false)
		buf = append(buf[:start], buf[start+1:len(buf)-1]...) // without the braces
	}
	for ci, enc := range attrs {
		if oi := ov[ci]; oi >= 0 {
			if e := own.Expr(oi); !deleted(e) {
				one(c.ad.Name(ci), e)
			}
			continue
		}
		sep()
		buf = append(buf, enc...)
	}
	for i := range own.Len() {
		if e := own.Expr(i); ov[len(attrs)+i] < 0 && !deleted(e) {
			one(own.Name(i), e)
		}
	}
	return append(buf, '}')
}
