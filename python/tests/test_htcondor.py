"""The htcondor2 module against a personal pool the tests start: submit,
query with projection, act, edit, history, collector queries and a job's
events (HTCondor manual, "Python Bindings: htcondor2 API")."""

import os
import tempfile
import unittest

import kitepool
import kite.htcondor2 as htcondor
from kite import classad2 as classad


def setUpModule():
    kitepool.pool()


class PoolTest(unittest.TestCase):
    def setUp(self):
        self._cwd = os.getcwd()
        self.dir = tempfile.mkdtemp(prefix="kite-py-")
        os.chdir(self.dir)
        self.schedd = htcondor.Schedd()

    def tearDown(self):
        os.chdir(self._cwd)

    def held(self, count, **cmds):
        sub = htcondor.Submit(dict({"executable": "/bin/sleep", "arguments": "600", "hold": "true"}, **cmds))
        return self.schedd.submit(sub, count=count)


class TestSchedd(PoolTest):
    def test_submit_and_query_with_projection(self):
        r = self.held(3, **{"+Color": '"blue"'})
        self.assertEqual((r.num_procs(), r.first_proc()), (3, 0))
        ads = self.schedd.query(f"ClusterId == {r.cluster()}", projection=["ProcId", "Color", "JobStatus"])
        self.assertEqual([dict(a) for a in ads], [{"ProcId": p, "Color": "blue", "JobStatus": 5} for p in range(3)])
        one = self.schedd.query(classad.ExprTree(f"ClusterId == {r.cluster()} && ProcId == 1"), limit=5)
        self.assertEqual(len(one), 1)
        self.assertEqual(one[0]["Cmd"], "/bin/sleep")
        self.assertEqual(self.schedd.query(f"ClusterId == {r.cluster()}", ["ProcId"], callback=lambda ad: ad["ProcId"]), [0, 1, 2])
        self.assertEqual(r.clusterad()["ClusterId"], r.cluster())

    def test_submit_itemdata(self):
        sub = htcondor.Submit({"executable": "/bin/echo", "arguments": "$(word) $(n)", "hold": "true"})
        r = self.schedd.submit(sub, itemdata=iter([{"word": "red", "n": "1"}, {"word": "green", "n": "2"}]))
        args = [a["Args"] for a in self.schedd.query(f"ClusterId == {r.cluster()}", projection=["Args"])]
        self.assertEqual(args, ["red 1", "green 2"])
        sub = htcondor.Submit("executable = /bin/echo\narguments = $(Item)\nhold = true\nqueue Item in (a, b, c)\n")
        self.assertEqual(self.schedd.submit(sub).num_procs(), 3)
        with self.assertRaises(ValueError):
            self.schedd.submit(sub, count=2, queue="3")

    def test_submit_error_names_the_line(self):
        with self.assertRaises(htcondor.HTCondorException) as cm:
            self.schedd.submit(htcondor.Submit({"executable": "/bin/true", "request_memory": "1 +"}))
        self.assertIn("2:", str(cm.exception))  # the line of request_memory
        self.assertIn("request_memory: expected an expression", str(cm.exception))

    def test_act(self):
        r = self.held(4)
        res = self.schedd.act(htcondor.JobAction.Release, f"ClusterId == {r.cluster()} && ProcId <= 1")
        self.assertEqual((res["TotalJobAds"], res["TotalSuccess"]), (2, 2))
        res = self.schedd.act(htcondor.JobAction.Hold, [f"{r.cluster()}.0", f"{r.cluster()}.3"], reason="by test")
        self.assertEqual((res["TotalSuccess"], res["TotalBadStatus"]), (1, 1))  # 3 was held already
        ad = self.schedd.query(f"ClusterId == {r.cluster()} && ProcId == 0", ["HoldReason"])[0]
        self.assertIn("by test", ad["HoldReason"])
        res = self.schedd.act(htcondor.JobAction.Remove, r.cluster())
        self.assertEqual(res["TotalSuccess"], 4)
        self.assertEqual(self.schedd.query(f"ClusterId == {r.cluster()}"), [])
        with self.assertRaises(htcondor.HTCondorException):
            self.schedd.act(htcondor.JobAction.Suspend, r.cluster())

    def test_edit_and_history(self):
        r = self.held(2)
        self.assertEqual(self.schedd.edit(f"ClusterId == {r.cluster()}", "foo", '"bar"'), 2)
        self.assertEqual(self.schedd.edit([f"{r.cluster()}.1"], "n", classad.ExprTree("1 + 2")), 1)
        ads = self.schedd.query(f"ClusterId == {r.cluster()}", projection=["foo", "n"])
        self.assertEqual(ads[0]["foo"], "bar")
        self.assertEqual(str(ads[1]["n"]), "1 + 2")
        with self.assertRaises(htcondor.HTCondorException) as cm:
            self.schedd.edit(r.cluster(), "ClusterId", "7")
        self.assertIn("ClusterId", str(cm.exception))
        self.schedd.act(htcondor.JobAction.Remove, r.cluster())
        hist = self.schedd.history(f"ClusterId == {r.cluster()}", projection=["ProcId", "JobStatus", "foo"], match=5)
        self.assertEqual(sorted((a["ProcId"], a["JobStatus"], a["foo"]) for a in hist), [(0, 3, "bar"), (1, 3, "bar")])
        self.assertEqual(len(self.schedd.history(f"ClusterId == {r.cluster()}", match=1)), 1)


    def test_reschedule_reaches_the_negotiator(self):
        self.schedd.reschedule()  # raises HTCondorException unless the negotiator answers


class TestCollector(PoolTest):
    def test_query_and_locate(self):
        coll = htcondor.Collector()
        slots = coll.query(htcondor.AdType.Startd, projection=["Name", "Cpus"])
        self.assertEqual(len(slots), 2)
        self.assertTrue(all(set(s) == {"Name", "Cpus"} for s in slots))
        self.assertEqual(len(coll.query(htcondor.AdType.Startd, constraint="Cpus > 100")), 0)
        schedd = coll.locate(htcondor.DaemonType.Schedd)
        self.assertIn(":", schedd["MyAddress"])
        self.assertEqual(len(coll.locateAll(htcondor.DaemonTypes.Negotiator)), 1)
        with self.assertRaises(htcondor.HTCondorException):
            coll.locate(htcondor.DaemonType.Schedd, "no-such-schedd")
        submitters = coll.query(htcondor.AdTypes.Schedd, projection=["Name"])
        self.assertEqual(len(submitters), 1)


class TestJobEventLog(PoolTest):
    def test_follow_a_job(self):
        sub = htcondor.Submit({"executable": "/bin/sh", "arguments": "\"-c 'exit 7'\"", "log": "job.log"})
        r = self.schedd.submit(sub)
        seen = []
        with htcondor.JobEventLog("job.log") as jel:
            for ev in jel.events(stop_after=60):
                self.assertEqual((ev.cluster, ev.proc), (r.cluster(), 0))
                seen.append(ev.type)
                if ev.type == htcondor.JobEventType.JOB_TERMINATED:
                    self.assertTrue(ev["TerminatedNormally"])
                    self.assertEqual(ev["ReturnValue"], 7)
                    self.assertIn("Job terminated.", str(ev))
                    break
        self.assertEqual(seen[0], htcondor.JobEventType.SUBMIT)
        self.assertIn(htcondor.JobEventType.EXECUTE, seen)
        self.assertEqual(seen[-1], htcondor.JobEventType.JOB_TERMINATED)
        hist = self.schedd.history(f"ClusterId == {r.cluster()}", projection=["ExitCode"])
        self.assertEqual(hist[0]["ExitCode"], 7)

    def test_held_and_released_events(self):
        sub = htcondor.Submit({"executable": "/bin/true", "requirements": "TARGET.Cpus > 1000", "log": "held.log"})
        r = self.schedd.submit(sub)
        self.schedd.act(htcondor.JobAction.Hold, r.cluster(), reason="held by the test")
        self.schedd.act(htcondor.JobAction.Release, r.cluster())
        self.schedd.act(htcondor.JobAction.Remove, r.cluster())
        events = []
        with htcondor.JobEventLog("held.log") as jel:
            for ev in jel.events(stop_after=30):
                events.append(ev)
                if ev.type == htcondor.JobEventType.JOB_ABORTED:
                    break
        self.assertEqual([e.type for e in events], [htcondor.JobEventType.SUBMIT, htcondor.JobEventType.JOB_HELD,
                                                    htcondor.JobEventType.JOB_RELEASED, htcondor.JobEventType.JOB_ABORTED])
        self.assertIn("held by the test", events[1]["HoldReason"])


if __name__ == "__main__":
    unittest.main()
