universe   = vanilla
executable = x_sleep.pl
log = lib_auth_protocol-negot-prt2.log
output = lib_auth_protocol-negot-prt2.out
error = lib_auth_protocol-negot-prt2.err
Notification = NEVER
arguments  = 45
queue

