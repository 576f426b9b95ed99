# From HTCondor's Python bindings tutorial "Advanced Job Submission And Management",
#   https://github.com/htcondor/htcondor/blob/7491a145f64a/docs/apis/python-bindings/tutorials/Advanced-Job-Submission-And-Management.ipynb
# code cells 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 (counting code cells from 1), unchanged but for the import lines.

import kite.htcondor2 as htcondor

sub = htcondor.Submit({"foo": "1", "bar": "2", "baz": "$(foo)"})
print(sub)

sub["qux"] = "3"
print(sub)

print(sub.expand("baz"))

sub = htcondor.Submit({
    "executable": "/bin/sleep",
    "arguments": "5m"
})

schedd = htcondor.Schedd()          # create a schedd object connected to the local schedd
submit_result = schedd.submit(sub)  # queue one job
print(submit_result.cluster())      # print the job's ClusterId

submit_result = schedd.submit(sub, count=10)

print(submit_result.cluster())

schedd.query(
    constraint='ClusterId =?= {}'.format(submit_result.cluster()),
    projection=["ClusterId", "ProcId", "JobStatus", "EnteredCurrentStatus"],
)

sub = htcondor.Submit({"executable": "/bin/sleep", "arguments": "$(Process)s"})

submit_result = schedd.submit(sub, count=10)

print(submit_result.cluster())

schedd.query(
    constraint='ClusterId=?={}'.format(submit_result.cluster()),
    projection=["ClusterId", "ProcId", "JobStatus", "Args"],
)

submit_result = schedd.submit(sub, count=5)  # queues 5 copies of this job
schedd.edit([f"{submit_result.cluster()}.{idx}" for idx in range(2)], "foo", '"bar"')  # sets attribute foo to the string "bar" for the first two jobs
    
for ad in schedd.query(
    constraint=f"ClusterId == {submit_result.cluster()}",
    projection=["ProcId", "JobStatus", "foo"],
):
    print(repr(ad))

schedd.act(htcondor.JobAction.Hold, f"ClusterId == {submit_result.cluster()} && ProcId >= 2")

for ad in schedd.query(
    constraint=f"ClusterId == {submit_result.cluster()}",
    projection=["ProcId", "JobStatus", "foo"],
):
    print(repr(ad))

import getpass

schedd.act(htcondor.JobAction.Remove, f'Owner == "{getpass.getuser()}"')
