universe   = vanilla
executable = x_sleep.pl
log = lib_auth_protocol-ssl.log
output = lib_auth_protocol-ssl.out
error = lib_auth_protocol-ssl.err
Notification = NEVER
arguments  = 45
queue

