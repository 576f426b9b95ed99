package submit

import (
	"regexp"
	"strings"
)

// HTCondor submit commands that Kite accepts and does not act on, each
// with what that means for the job: the warning names the command and
// the reason instead of asking whether a valid HTCondor command is a
// typo. The names are from the condor_submit manual page's command list;
// the corpus test (corpus_test.go) found them in HTCondor's own submit
// files and the manual's examples.
var unsupportedCommands = []struct {
	reason string
	names  []string
}{
	{"it belongs to the grid universe, which Kite does not run", []string{
		"grid_resource", "remote_grid_resource", "remote_universe", "remote_initialdir",
		"arc_application", "arc_data_staging", "arc_resources", "arc_rte",
		"azure_admin_key", "azure_admin_username", "azure_auth_file", "azure_image", "azure_location", "azure_size",
		"batch_extra_submit_args", "batch_project", "batch_queue", "batch_runtime",
		"cloud_label_names", "delegate_job_gsi_credentials_lifetime",
		"ec2_access_key_id", "ec2_key_pair_file", "ec2_keyp_air", "ec2_ami_id", "ec2_availability_zone", "ec2_block_device_mapping", "ec2_ebs_volumes",
		"ec2_elastic_ip", "ec2_iam_profile_arn", "ec2_iam_profile_name", "ec2_instance_type", "ec2_keypair",
		"ec2_keypair_file", "ec2_parameter_names", "ec2_secret_access_key", "ec2_security_groups", "ec2_security_ids",
		"ec2_spot_price", "ec2_tag_names", "ec2_user_data", "ec2_user_data_file", "ec2_vpc_ip", "ec2_vpc_subnet",
		"gce_account", "gce_auth_file", "gce_image", "gce_json_file", "gce_machine_type", "gce_metadata",
		"gce_metadata_file", "gce_preemptible",
	}},
	{"it belongs to the vm universe, which Kite does not run", []string{
		"vm_checkpoint", "vm_disk", "vm_macaddr", "vm_memory", "vm_networking", "vm_networking_type",
		"vm_no_output_vm", "vm_type", "vm_vcpus", "vm_vnc", "xen_initrd", "xen_kernel", "xen_kernel_params", "xen_root",
	}},
	{"it belongs to the parallel universe, which Kite does not run", []string{
		"machine_count", "node_count", "nodecount", "rendezvousdir", "parallel_script_shadow", "parallel_script_starter",
	}},
	{"it belongs to the standard universe's remote I/O, gone from HTCondor", []string{
		"append_files", "buffer_block_size", "buffer_files", "buffer_size", "compress_files", "fetch_files",
		"file_remaps", "local_files",
	}},
	{refuseDefer, deferKeys},
	{refuseCredentials, credentialKeys},
	{"Kite passes no cloud storage credentials to file transfer", []string{
		"aws_access_key_id_file", "aws_secret_access_key_file", "aws_region",
		"gs_access_key_id_file", "gs_secret_access_key_file", "s3_access_key_id_file", "s3_secret_access_key_file",
	}},
	{"Kite sends the job kill_sig whatever stops it", []string{"remove_kill_sig", "hold_kill_sig"}},
	{refuseRetryRequest, retryRequestKeys},
	{"the files are not sent: list them in transfer_input_files", []string{"public_input_files"}},
	{refuseOutputDirectory, []string{"output_directory"}},
	{"Kite's starter runs no Chirp I/O proxy", []string{"want_io_proxy"}},
	{"Kite runs no tool daemon beside the job", []string{
		"tool_daemon_cmd", "tool_daemon_args", "tool_daemon_arguments", "tool_daemon_arguments2",
		"tool_daemon_input", "tool_daemon_output", "tool_daemon_error",
	}},
	{"Kite writes no sandbox manifest", []string{"manifest", "manifest_dir"}},
	{"Kite keeps no list of a job's past matches", []string{"match_list_length"}},
	{"Kite always runs the job", []string{"skip_if_dataflow"}},
	{"it applies to Windows execute machines only", []string{"load_profile", "run_as_owner"}},
	{"it is obsolete: Kite sends the executable from where it is on the submit machine, with no spool copy", []string{"copy_to_spool"}},
}

// The commands above that change when, whether, where or with what a job
// runs: a job that set them would run differently from under HTCondor,
// so a set value is an error, not a warning (stepRefused).
const (
	refuseDefer           = "Kite starts a job as soon as it is matched; it does not defer the start"
	refuseCredentials     = "Kite sends no credentials (OAuth tokens, SciTokens, X.509 proxies) with a job"
	refuseRetryRequest    = "Kite does not resubmit a job with a larger request"
	refuseOutputDirectory = "Kite writes the job's output files to its initial directory"
	refuseNoop            = "Kite would run the job; a DAG's NOOP nodes are kite submit_dag's"
)

var (
	deferKeys = []string{
		"cron_day_of_month", "cron_day_of_week", "cron_hour", "cron_minute", "cron_month", "cron_prep_time",
		"cron_window", "deferral_prep_time", "deferral_time", "deferral_window",
	}
	credentialKeys = []string{
		"use_oauth_services", "useoauthservices", "use_scitokens", "use_scitoken", "scitokens_file", "use_x509userproxy", "x509userproxy",
	}
	retryRequestKeys = []string{
		"retry_request_memory", "retry_request_memory_increase", "retry_request_memory_max", "retry_request_disk",
	}
	// refusedCommands: each group's keys, set to anything but a false
	// boolean, refuse the submit.
	refusedCommands = []struct {
		reason string
		keys   []string
	}{
		{refuseDefer, deferKeys},
		{refuseCredentials, credentialKeys},
		{refuseRetryRequest, retryRequestKeys},
		{refuseOutputDirectory, []string{"output_directory"}},
		{refuseNoop, []string{"noop_job", "noop_job_exit_code", "noop_job_exit_signal"}},
	}
)

// stepRefused refuses a job that sets a command whose effect Kite does
// not provide (refusedCommands): a clear error at its line rather than a
// job that runs otherwise than the file says. A false boolean
// (use_x509userproxy = false, noop_job = false) asks for nothing and
// passes.
func stepRefused(b *builder) error {
	for _, g := range refusedCommands {
		for _, k := range g.keys {
			v, m := b.value(k)
			if v == "" {
				continue
			}
			if on, ok := b.x.parseBool(v); ok && !on {
				continue
			}
			return b.errorf(m, "%s is not supported: %s", m.name, g.reason)
		}
	}
	return nil
}

// perServiceCommand matches the commands whose names carry a credential
// service, cloud label, EC2 parameter or tag name:
// <service>_oauth_permissions[_<handle>], <service>_oauth_resource[_<handle>],
// cloud_label_<name>, ec2_parameter_<name>, ec2_tag_<name>.
var perServiceCommand = regexp.MustCompile(`^(\w+_oauth_(permissions|resource)(_\w+)?|cloud_label_\w+|ec2_parameter_\w+|ec2_tag_\w+)$`)

func init() {
	for _, u := range unsupportedCommands {
		for _, name := range u.names {
			ignoredCommands[name] = u.reason
		}
	}
	for _, g := range refusedCommands {
		for _, k := range g.keys {
			knownCommands[k] = true
		}
	}
}

// ignoredReason returns why Kite ignores an HTCondor command (lower case),
// and whether it is one.
func ignoredReason(key string) (string, bool) {
	if reason, ok := ignoredCommands[key]; ok {
		return reason, true
	}
	if perServiceCommand.MatchString(key) {
		if strings.Contains(key, "_oauth_") {
			return ignoredCommands["use_oauth_services"], true
		}
		return ignoredCommands["grid_resource"], true
	}
	return "", false
}
