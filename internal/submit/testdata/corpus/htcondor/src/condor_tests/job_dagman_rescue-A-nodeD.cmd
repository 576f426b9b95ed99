executable   = ./job_dagman_rescue-A-nodeD.pl
universe     = scheduler
output       = job_dagman_rescue-A-nodeD.out
error        = job_dagman_rescue-A-nodeD.err
log          = job_dagman_rescue-A-node.log
Notification = NEVER
queue
