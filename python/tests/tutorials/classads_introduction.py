# From HTCondor's Python bindings tutorial "ClassAds Introduction",
#   https://github.com/htcondor/htcondor/blob/7491a145f64a/docs/apis/python-bindings/tutorials/ClassAds-Introduction.ipynb
# code cells 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13 (counting code cells from 1), unchanged but for the import lines.
# Cell 9 is left out: it shows the KeyError of a missing attribute on purpose.

from kite import classad2 as classad

arith_expr = classad.ExprTree("1 + 4")
print(f"ClassAd arithemetic expression: {arith_expr} (of type {type(arith_expr)})")

print(arith_expr.eval())

function_expr = classad.ExprTree("ifThenElse(4 > 6, 123, 456)")
print(f"Function expression: {function_expr}")

value = function_expr.eval()
print(f"Corresponding value: {value} (of type {type(value)})")

print(classad.ExprTree("foo").eval())

print(classad.ExprTree('5 + "bar"').eval())
print(classad.ExprTree('ifThenElse(1, 2, 3, 4, 5)').eval())

ad1 = classad.ClassAd("""
[
  a = 1;
  b = "foo";
  c = b;
  d = a + 4;
]""")
print(ad1)

ad_from_dict = classad.ClassAd(
{
    "a": 1,
    "b": "foo",
    "c": classad.ExprTree("b"),
    "d": classad.ExprTree("a + 4"),
})
print(ad_from_dict)

print(ad1.get("not_here", 5))

ad1.update({"e": 8, "f": True})
print(ad1)

print(ad1.eval("d"))

ad1["g"] = classad.ExprTree("b + 5")
print(ad1["g"])
print(type(ad1["g"]))
print(ad1.eval("g"))
