Executable           	= ./x_dagman_node-ret.pl
Universe             	= vanilla
log = job_dagman_maxpostscripts-node.log
Notification         	= NEVER
getenv = CONDOR*,PATH
output = job_dagman_maxpostscripts-node.out
error = job_dagman_maxpostscripts-node.err
Queue

