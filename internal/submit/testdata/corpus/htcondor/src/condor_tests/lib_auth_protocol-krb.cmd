universe   = vanilla
executable = x_sleep.pl
log = lib_auth_protocol-krb.log
output = lib_auth_protocol-krb.out
error = lib_auth_protocol-krb.err
Notification = NEVER
arguments  = 45
queue

