Executable           	= ./x_dagman_node-ret.pl
Universe             	= vanilla
log = job_dagman_maxpostscripts.log
Notification         	= NEVER
getenv = CONDOR*,PATH
output = job_dagman_maxpostscripts.out
error = job_dagman_maxpostscripts.err
Queue

