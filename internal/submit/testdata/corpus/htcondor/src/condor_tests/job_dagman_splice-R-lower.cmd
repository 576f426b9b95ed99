executable = /bin/echo
universe = scheduler
arguments = $(foo)
output = job_dagman_splice-R-lower.out
error = job_dagman_splice-R-lower.err
log = job_dagman_splice-R-lower.log
queue
