executable   = ./job_dagman_recovery_event_check-nodeB.pl
universe     = scheduler
output       = job_dagman_recovery_event_check-nodeB.out
error        = job_dagman_recovery_event_check-nodeB.err
log          = job_dagman_recovery_event_check.log
Notification = NEVER
queue
