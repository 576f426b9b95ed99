universe   = scheduler
executable = ./x_read_joblog.exe
output = lib_userlog.out
error = lib_userlog.err
log = lib_userlog.log
arguments = local.log TRACE
Notification = NEVER
queue

