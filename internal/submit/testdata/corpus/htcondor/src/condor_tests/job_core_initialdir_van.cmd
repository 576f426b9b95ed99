universe = vanilla
executable =  x_echo1234.pl
initialdir = initd_van
#log = $ENV(PWD)/job_core_initialdir_van.log
log = job_core_initialdir_van.log
output = job_core_initialdir_van.out
error = job_core_initialdir_van.err
arguments = 5
getenv=true
Notification = NEVER
queue


