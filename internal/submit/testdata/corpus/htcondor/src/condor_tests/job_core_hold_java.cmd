universe   = java
executable = x_java_Sleep.class
log = job_core_hold_java.log
output = job_core_hold_java.out
error = job_core_hold_java.err
hold	= True
Notification = NEVER
arguments  = x_java_Sleep 3
queue

