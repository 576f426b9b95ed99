universe   = vanilla
executable = x_sleep.pl
log = job_core_holdrelease_van.log
output = job_core_holdrelease_van.out
error = job_core_holdrelease_van.err
Notification = NEVER
arguments  = 0
queue

