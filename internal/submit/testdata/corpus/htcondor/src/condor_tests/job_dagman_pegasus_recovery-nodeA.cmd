executable   = ./job_dagman_pegasus_recovery-nodeA.pl
universe     = scheduler
output       = job_dagman_pegasus_recovery-nodeA.out
error        = job_dagman_pegasus_recovery-nodeA.err
log          = job_dagman_pegasus_recovery-nodeA.log
Notification = NEVER
queue
