# From HTCondor's Python bindings tutorial "Advanced Schedd Interactions",
#   https://github.com/htcondor/htcondor/blob/7491a145f64a/docs/apis/python-bindings/tutorials/Advanced-Schedd-Interactions.ipynb
# code cells 1, 2, 3, 4 (counting code cells from 1), unchanged but for the import lines.

import kite.htcondor2 as htcondor
from kite import classad2 as classad

schedd = htcondor.Schedd()
sub = htcondor.Submit({
    "executable": "/bin/sleep",
    "arguments": "5m",
    "hold": "True",
})
submit_result = schedd.submit(sub, count=10)
print(submit_result.cluster())

print(len(schedd.query(projection=["ProcID"], constraint=f"ClusterId=={submit_result.cluster()}")))

schedd = htcondor.Schedd()
for ad in schedd.history(
    constraint='true',
    projection=['ProcId', 'ClusterId', 'JobStatus'],
    match=2,  # limit to 2 returned results
):
    print(ad)
