package queue

// Hook returns the function SetHook set (nil if none), so that a second
// user of the hook can run it before its own.
func (q *Queue) Hook() func(tx *Tx) error { return q.hook }
