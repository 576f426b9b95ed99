universe   = scheduler
executable = job_core_io.pl
output = job_core_input_sched.out
error = job_core_input_sched.err
log = job_core_input_sched.log
input	   = job_core_input.in
Notification = NEVER
queue

