package cli

import (
	"strings"
	"testing"
)

// condorOptions are the options of HTCondor's tools as their manual pages
// (docs/man-pages/condor_q.rst, condor_status.rst, condor_history.rst,
// condor_rm.rst, condor_userprio.rst, condor_qedit.rst, condor_ssh_to_job.rst,
// condor_transfer_data.rst) list them, by kite command.
var condorOptions = map[string]string{
	"q": "-aaf -analyze -attributes -autocluster -autoformat -batch -better-analyze -cputime -cumulative-time " +
		"-currentrun -dag -debug -expert -factory -format -global -grid -hold -hold-codes -idle -io -jobads " +
		"-jobset -json -limit -long -machine -mconstraint -name -nobatch -nouserprios -pool -print-format " +
		"-reverse-analyze -run -slotads -stream-results -submitter -totals -userlog -userprios -verbose " +
		"-version -wide -xml -constraint -af -help",
	"status": "-aaf -absent -ads -annex -any -attributes -autoformat -avail -broken -claimed -cod -collector " +
		"-compact -constraint -debug -defrag -diagnose -direct -expert -format -grid -healthy -help -java -json " +
		"-license -limit -long -lvm -master -merge -negotiator -offline -pool -print-format -run -schedd " +
		"-server -snapshot -sort -startd -state -statistics -storage -submitters -subsystem -target -totals -vm -xml",
	"history": "-af -attributes -backwards -completedsince -constraint -daemon -debug -diagnostic -dir -epochs " +
		"-extract -file -format -forwards -help -inherit -json -jsonl -l -limit -local -match -name " +
		"-no-librarian -pool -print-format -scanlimit -schedd -search -since -startd -stream-results " +
		"-transfer -transfer-history -type -userlog -wide -xml",
	"rm": "-addr -all -constraint -debug -forcex -held -help -long -name -pool -totals -transfer -version",
	"userprio": "-activefrom -af -all -allusers -cancelceilinglease -cancelfactorlease -cancelfloorlease " +
		"-collector -constraint -debug -delete -duration -flat -getreslist -groupid -grouporder -grouprollup " +
		"-help -hierarchical -inputfile -legacy -long -modular -most -name -negotiator -order -pool -priority " +
		"-quotas -resetall -resetusage -setaccum -setbegin -setceiling -setfactor -setfloor -setlast -setprio " +
		"-sortkey -surplus -usage",
	"qedit":         "-constraint -debug -dry-run -edits -forward -help -jobids -n -owner -pool",
	"ssh_to_job":    "-help -debug -name -pool -ssh -keygen-options -shells -auto-retry -remove-on-interrupt",
	"transfer_data": "-help -version -pool -name -addr -constraint -all",
}

// Every option of those tools is one kite takes or one it refuses as
// "not supported", naming it: none is an unknown option.
func TestEveryHTCondorOptionIsTakenOrRefused(t *testing.T) {
	for cmd, list := range condorOptions {
		for _, opt := range strings.Fields(list) {
			_, err := htcondorArgs(New(), []string{cmd, opt})
			if err != nil && !strings.Contains(err.Error(), "option "+opt+" is not supported: ") {
				t.Errorf("kite %s %s: %v", cmd, opt, err)
			}
		}
	}
}
