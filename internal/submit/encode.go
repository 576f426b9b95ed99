package submit

import "github.com/kite-sched/kite/classad"

// AppendJSON appends the cluster as the schedd's submit endpoint takes it:
// a JSON array of the cluster ad, then each proc's own ad. The buffer is
// grown once, sized from the first proc.
func (c *Cluster) AppendJSON(buf []byte) []byte {
	buf = classad.AppendJSON(append(buf, '['), c.Ad, false)
	for i, p := range c.Procs {
		start := len(buf)
		buf = append(buf, ',')
		buf = classad.AppendJSON(buf, p, false)
		if i == 0 {
			per := len(buf) - start + 8
			buf = append(make([]byte, 0, len(buf)+per*len(c.Procs)), buf...)
		}
	}
	return append(buf, ']')
}
