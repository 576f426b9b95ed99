executable   = ./job_dagman_recovery_preskip-nodeB.pl
universe     = scheduler
output       = job_dagman_recovery_preskip-nodeB.out
error        = job_dagman_recovery_preskip-nodeB.err
log          = job_dagman_recovery_preskip.log
Notification = NEVER
queue
