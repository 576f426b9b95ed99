universe   = vanilla
executable = x_sleep.pl
arguments = 15
log = cmd_q_shows-better-analyze.log
output = cmd_q_shows-better-analyze.out
error = cmd_q_shows-better-analyze.err
Notification = NEVER
requirements = Memory >= 3000000 && FALSE
arguments  = 3600
queue

