executable = x_echostring.pl
arguments = "Global event log test"
universe = scheduler
output = job_dagman_global_event_log-B-node.out
log = job_dagman_global_event_log-B.log 
queue
