universe   = java
executable = x_java_ReadStdin.class
output = job_core_input_java.out
error = job_core_input_java.err
log = job_core_input_java.log
input	   = job_core_input.in
arguments = x_java_ReadStdin
Notification = NEVER
queue

