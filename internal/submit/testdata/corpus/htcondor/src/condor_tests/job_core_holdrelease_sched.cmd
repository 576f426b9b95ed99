universe   = scheduler
executable = x_sleep.pl
log = job_core_holdrelease_sched.log
output = job_core_holdrelease_sched.out
error = job_core_holdrelease_sched.err
Notification = NEVER
arguments  = 3600
queue

