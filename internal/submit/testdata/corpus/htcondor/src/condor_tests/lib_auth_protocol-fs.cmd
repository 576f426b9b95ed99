universe   = vanilla
executable = x_sleep.pl
log = lib_auth_protocol-fs.log
output = lib_auth_protocol-fs.out
error = lib_auth_protocol-fs.err
Notification = NEVER
arguments  = 45
queue

