universe   = vanilla
executable = x_sleep.pl
log = lib_auth_protocol-negot-prt3.log
output = lib_auth_protocol-negot-prt3.out
error = lib_auth_protocol-negot-prt3.err
Notification = NEVER
arguments  = 45
queue

