package submit

import "strings"

// steps returns the steps for the commands in force, in condor_submit's
// order: the +Attr lines come after the commands that set attributes
// directly and before Requirements and the policy expressions, which look
// at what the job already has.
func (x *expander) steps() []step {
	s := []step{
		{"universe", stepUniverse},
		{"unsupported", stepRefused},
		{"container_image", stepContainer},
		{"initialdir", stepIwd},
		{"executable", stepExecutable},
	}
	for _, c := range simpleCommands {
		s = append(s, step{c.keys[0], simpleStep(c)})
	}
	s = append(s,
		step{"kill_sig", stepKillSig},
		step{"log", stepLog},
		step{"hold", stepStatus},
		step{"environment", stepEnvironment},
		step{"notification", stepNotification},
		step{"rank", stepRank},
		step{"input", stdStep(stdinFile)},
		step{"output", stdStep(stdoutFile)},
		step{"error", stdStep(stderrFile)},
		step{"image_size", stepImageSize},
		step{"transfer", stepTransfer},
		step{"java", stepJava},
		step{"request_cpus", requestStep(requestCpus, "1")},
		step{"request_memory", requestStep(requestMemory, "128")},
		step{"request_disk", requestStep(requestDisk, defaultRequestDisk)},
	)
	for _, key := range x.defs.order {
		if isCustomRequest(key) {
			s = append(s, step{key, customRequestStep(key)})
		}
	}
	s = append(s, step{"require_gpus", stepGPUs})
	for _, key := range x.defs.order {
		if strings.HasPrefix(key, "my.") {
			s = append(s, step{key, attrStep(key)})
		}
	}
	return append(s,
		step{"requirements", stepRequirements},
		step{"retries", stepRetries},
		step{"policy", stepPolicy},
		step{"concurrency_limits", stepConcurrency},
		step{"accounting_group", stepAccounting},
		step{"arguments", stepArguments},
		step{"auto", stepAuto},
	)
}

// knownCommands are the commands Kite understands, lower-cased; any other
// name defined in a submit file and never referenced draws a warning.
var knownCommands = map[string]bool{}

// ignoredCommands are HTCondor commands Kite accepts but does not act on.
var ignoredCommands = map[string]string{
	"nice_user":            "nice_user is not supported",
	"skip_filechecks":      "",
	"arguments2":           "use arguments",
	"environment2":         "use environment",
	"allow_startup_script": "",
}

func init() {
	lists := [][]string{universeKeys, iwdKeys, executableKeys, transferExeKeys, argumentsKeys, jarFilesKeys, javaVMArgKeys,
		environmentKeys, getenvKeys, holdKeys,
		stdinFile.keys, stdinFile.transferKeys, stdinFile.streamKeys,
		stdoutFile.keys, stdoutFile.transferKeys, stdoutFile.streamKeys,
		stderrFile.keys, stderrFile.transferKeys, stderrFile.streamKeys,
		requestCpus.keys, requestMemory.keys, requestDisk.keys,
		{"log", "userlog", "log_xml", "userlogusexml", "image_size", "imagesize", "disk_usage", "diskusage",
			"transfer_input_files", "transferinputfiles", "transfer_output_files", "transferoutputfiles",
			"should_transfer_files", "shouldtransferfiles", "when_to_transfer_output", "whentotransferoutput",
			"transfer_output_remaps", "transferoutputremaps", "requirements", "rank", "preferences",
			"notification", "jobnotification", "on_exit_remove", "onexitremove", "on_exit_hold", "onexithold",
			"max_retries", "maxretries", "success_exit_code", "jobsuccessexitcode", "retry_until",
			"concurrency_limits", "concurrencylimits", "concurrency_limits_expr",
			"accounting_group", "accountinggroup", "accounting_group_user", "acctgroupuser", "kill_sig", "killsig"},
	}
	for _, p := range policyExprs {
		lists = append(lists, p.keys)
	}
	for _, c := range simpleCommands {
		lists = append(lists, c.keys)
	}
	for _, l := range lists {
		for _, k := range l {
			knownCommands[k] = true
		}
	}
}
