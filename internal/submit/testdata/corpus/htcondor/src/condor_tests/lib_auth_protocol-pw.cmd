universe   = vanilla
executable = x_sleep.pl
log = lib_auth_protocol-pw.log
output = lib_auth_protocol-pw.out
error = lib_auth_protocol-pw.err
Notification = NEVER
arguments  = 45
queue

