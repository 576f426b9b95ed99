universe   = vanilla
executable = x_sleep.pl
log = lib_auth_allowdeny-ctb.log
output = lib_auth_allowdeny-ctb.out
error = lib_auth_allowdeny-ctb.err
Notification = NEVER
arguments  = 45
+Owner = Undefined
queue

