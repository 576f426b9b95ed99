package queue

// AddHistory stages a record at the end of the history that is no job's
// leaving: the ad of a DAG that finished, as HTCondor's history keeps its
// DAGMan job's. rec is the ad as JSON, as History hands records out; it
// is subject to the history's retention like a job's.
func (tx *Tx) AddHistory(rec []byte) {
	q := tx.q
	seq := q.histNext
	q.histNext++
	tx.writes = append(tx.writes, write{bucketHistory, u64(seq), rec})
	if tx.histMeta == 0 {
		tx.histMeta = len(tx.writes)
		tx.writes = append(tx.writes, write{bucketMeta, keyHistoryNext, nil})
	}
	tx.writes[tx.histMeta].val = u64(q.histNext)
	tx.undo = append(tx.undo, func() { q.histNext-- })
}
