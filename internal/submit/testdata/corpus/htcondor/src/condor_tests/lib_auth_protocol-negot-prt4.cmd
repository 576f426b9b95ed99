universe   = vanilla
executable = x_sleep.pl
log = lib_auth_protocol-negot-prt4.log
output = lib_auth_protocol-negot-prt4.out
error = lib_auth_protocol-negot-prt4.err
Notification = NEVER
arguments  = 45
queue

