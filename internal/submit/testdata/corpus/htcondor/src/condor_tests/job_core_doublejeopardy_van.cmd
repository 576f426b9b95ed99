universe   = vanilla
executable = x_doublejeopardy.pl
log = job_core_doublejeopardy_van.log
error = job_core_doublejeopardy_van.err
output = job_core_doublejeopardy_van.out
Notification = NEVER
wantcorefile = false
queue 2

