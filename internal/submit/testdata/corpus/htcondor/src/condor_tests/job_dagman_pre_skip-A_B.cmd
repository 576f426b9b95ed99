executable = /bin/echo
output = job_dagman_pre_skip-A_B.out
error = job_dagman_pre_skip-A_B.err
arguments = OK done with B
universe = scheduler
queue
