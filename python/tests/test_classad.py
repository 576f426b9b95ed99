"""The classad2 module: ClassAd as a mapping, ExprTree, parsing, quoting
and evaluation (HTCondor manual, "Python Bindings: classad2 API")."""

import datetime
import io
import unittest

from kite import classad2 as classad


class TestClassAd(unittest.TestCase):
    def test_mapping(self):
        ad = classad.ClassAd({"Cpus": 4, "Name": "slot1", "Nested": {"a": 1}})
        self.assertEqual(ad["cpus"], 4)  # names are case-insensitive
        self.assertEqual(list(ad), ["Cpus", "Name", "Nested"])
        self.assertIsInstance(ad["Nested"], classad.ClassAd)
        ad["CPUS"] = 8  # keeps the first spelling
        self.assertEqual(list(ad.items())[0], ("Cpus", 8))
        del ad["name"]
        self.assertNotIn("Name", ad)
        self.assertEqual(len(ad), 2)
        with self.assertRaises(KeyError):
            ad["missing"]
        self.assertEqual(ad.get("missing", 5), 5)
        with self.assertRaises(TypeError):
            ad["x"] = object()

    def test_parse_values(self):
        ad = classad.ClassAd('[a = 1; b = -2.5; c = "s"; d = true; e = {1, "x"}; f = [g = 1]; h = a + 1; u = undefined; r = error]')
        self.assertEqual((ad["a"], ad["b"], ad["c"], ad["d"], ad["e"]), (1, -2.5, "s", True, [1, "x"]))
        self.assertEqual(ad["f"]["g"], 1)
        self.assertIsInstance(ad["h"], classad.ExprTree)
        self.assertEqual(str(ad["h"]), "a + 1")
        self.assertIs(ad["u"], classad.Value.Undefined)
        self.assertIs(ad["r"], classad.Value.Error)

    def test_eval_and_lookup(self):
        ad = classad.ClassAd({"a": 1, "b": classad.ExprTree("a + 4"), "t": classad.ExprTree('absTime("2004-01-01T00:00:00Z")')})
        self.assertEqual(ad.eval("b"), 5)
        self.assertEqual(str(ad.lookup("a")), "1")
        self.assertEqual(ad.eval("t"), datetime.datetime(2004, 1, 1, tzinfo=datetime.timezone.utc))
        self.assertIs(classad.ExprTree("nope").eval(), classad.Value.Undefined)
        self.assertIs(classad.ExprTree('5 + "bar"').eval(), classad.Value.Error)
        self.assertEqual(classad.ExprTree("TARGET.x * MY.y").eval({"y": 2}, {"x": 3}), 6)
        with self.assertRaises(KeyError):
            ad.eval("missing")

    def test_values_survive_the_round_trip(self):
        values = [0, -7, 2**62, 0.1, -0.0, 1e300, float("inf"), "a\"b\\c\nd\x01", True, [1, [2.5]], classad.Value.Undefined,
                  datetime.timedelta(days=1, seconds=3661), datetime.datetime(2020, 5, 17, 3, 4, 5, tzinfo=datetime.timezone.utc)]
        for v in values:
            ad = classad.ClassAd({"v": v, "w": classad.ExprTree("v")})
            self.assertEqual(ad.eval("w"), v, repr(v))

    def test_printing(self):
        ad = classad.ClassAd('[a = 1; b = "x"; c = a + 1; \'odd name\' = 2.5]')
        self.assertEqual(str(ad), '[ a = 1; b = "x"; c = a + 1; \'odd name\' = 2.500000000000000E+00 ]')
        self.assertEqual(ad.printOld(), 'a = 1\nb = "x"\nc = a + 1\n\'odd name\' = 2.5\n')
        self.assertEqual(ad.printJson(), '{"a": 1, "b": "x", "c": "\\/Expr(a + 1)\\/", "odd name": 2.5}')

    def test_parse_ads(self):
        old = "A = 1\nB = \"x\"\n\nA = 2\nC = A * 2\n"
        ads = list(classad.parseAds(old))
        self.assertEqual([dict(a) for a in ads][0], {"A": 1, "B": "x"})
        self.assertEqual(ads[1].eval("C"), 4)
        self.assertEqual(len(list(classad.parseAds(io.StringIO("[a = 1] [b = \"]\"]"), classad.ParserType.New))), 2)
        merged = classad.parseOne(old)
        self.assertEqual((merged["A"], merged["B"]), (2, "x"))
        self.assertEqual(classad.parseNext("[a = 3] [a = 4]")["a"], 3)
        with self.assertRaises(classad.ClassAdException) as cm:
            classad.ClassAd("[a = ]")
        self.assertIn("1:6", str(cm.exception))

    def test_quote(self):
        for s in ["plain", 'a"b', "back\\slash", "tab\tnew\nline"]:
            q = classad.quote(s)
            self.assertTrue(q.startswith('"') and q.endswith('"'))
            self.assertEqual(classad.unquote(q), s)
        self.assertEqual(classad.quote('a"b'), '"a\\"b"')

    def test_match(self):
        job = classad.ClassAd({"Requirements": classad.ExprTree("TARGET.Memory >= 1024"), "Memory": 1})
        slot = classad.ClassAd({"Memory": 2048, "Requirements": classad.ExprTree("TARGET.Memory < 10")})
        self.assertTrue(job.matches(slot))
        self.assertTrue(job.symmetricMatch(slot))
        slot["Memory"] = 512
        self.assertFalse(job.matches(slot))

    def test_expr_tree(self):
        self.assertEqual(classad.ExprTree("1+4"), classad.ExprTree("1 + 4"))
        self.assertEqual(str(classad.ExprTree("ifThenElse(4 > 6, 123, 456)")), "ifThenElse(4 > 6,123,456)")
        with self.assertRaises(classad.ClassAdException):
            classad.ExprTree("1 +")
        self.assertEqual(str(classad.Value.Undefined), "Undefined")


if __name__ == "__main__":
    unittest.main()
