universe   = vanilla
executable = job_core_io.pl
output = job_core_output_van.out
error = job_core_output_van.err
log = job_core_output_van.log
input	   = job_core_output.in
transfer_files = NEVER
Notification = NEVER
queue

