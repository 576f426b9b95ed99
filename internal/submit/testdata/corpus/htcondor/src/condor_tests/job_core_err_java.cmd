universe = java
executable = x_java_CondorEcho.class
log = job_core_err_java.log
output = job_core_err_java.out
error = job_core_err_java.err
arguments = Break it by not starting with Echo
getenv=true
Notification = NEVER
queue


