package attr

// Attributes of spooled jobs, as HTCondor names them (condor_submit(1),
// -spool and -remote; condor_transfer_data(1)): the tool sends the job's
// input files to the schedd, which keeps them, and the job's output, in a
// spool directory of its own until condor_transfer_data fetches it.
const (
	// SubmitIwd is the job's initial directory on the submit side; Iwd
	// names the spool directory once the input is spooled.
	SubmitIwd = "SUBMIT_Iwd"
	// SubmitOut and SubmitErr keep an Out or Err path in another
	// directory that the spool directory replaced with its base name
	// (Kite's; HTCondor keeps the paths in its own spool bookkeeping).
	SubmitOut = "SUBMIT_Out"
	SubmitErr = "SUBMIT_Err"
	// LeaveJobInQueue keeps a completed job in the queue while true.
	LeaveJobInQueue = "LeaveJobInQueue"
	// StageInStart and StageInFinish bound the spooling of the input;
	// StageOutStart and StageOutFinish the fetching of the output.
	StageInStart   = "StageInStart"
	StageInFinish  = "StageInFinish"
	StageOutStart  = "StageOutStart"
	StageOutFinish = "StageOutFinish"
	// TransferExecutable = false: the executable is not sent.
	TransferExecutable = "TransferExecutable"
)

// HoldSpoolingInput is the hold of a spooled job until its input is in
// (HTCondor's SpoolingInput, "Spooling input data files").
const HoldSpoolingInput = 16

// SpoolingReason is the hold reason of a job whose input is being spooled.
const SpoolingReason = "Spooling input data files"

// LeaveSpooledInQueue is condor_submit's LeaveJobInQueue for a spooled
// job: a completed job stays in the queue up to ten days, until its output
// is fetched (StageOutFinish after it completed).
const LeaveSpooledInQueue = "JobStatus == 4 && (time() - (CompletionDate ?: time())) < 864000 && (StageOutFinish ?: 0) < EnteredCurrentStatus"
