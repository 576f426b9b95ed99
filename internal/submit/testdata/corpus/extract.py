"""Rebuilds the submit-file corpora of this directory (see README.md).

Usage: MIRROR=DIR python3 extract.py, where DIR holds bare clones named
OWNER+NAME/repo (htcondor+htcondor, pegasus-isi+pegasus,
htcondor+pool-exerciser, lsst+ctrl_bps_htcondor). It copies the files as
they are at each clone's HEAD; the golden files are then rewritten with
go test ./internal/submit -run TestCorpus -update.
"""
import os, re, subprocess, sys
OUT = os.path.dirname(os.path.abspath(__file__))
MIRROR = os.environ.get("MIRROR", "/work/.mirror")
def git(gd, *a):
    return subprocess.run(["git", "--git-dir=" + gd] + list(a), capture_output=True, check=True).stdout
def ls(gd):
    return git(gd, "ls-tree", "-r", "--name-only", "HEAD").decode().splitlines()
def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "wb").write(data)

# corpus 1: HTCondor's own submit files and the manual's examples
H = f"{MIRROR}/htcondor+htcondor/repo"
skip = {"msconfig/generate_product_guid.cmd",  # a Windows batch script
        "src/condor_examples/condor_config.local.dedicated.submit"}  # a config file
paths = ls(H)
subs = [p for p in paths if re.search(r"\.(sub|submit|cmd)$", p) and p not in skip]
for p in subs:
    write(f"{OUT}/htcondor/{p}", git(H, "show", f"HEAD:{p}"))
# the source tree around them, for the fake file system (globs, executables)
dirs = {os.path.dirname(p) for p in subs}
tree = set()
for p in paths:
    d = os.path.dirname(p)
    while d:
        if d in dirs:
            tree.add(p)
            break
        d = os.path.dirname(d)
for p in list(tree):
    d = os.path.dirname(p)
    while d:
        tree.add(d + "/")
        d = os.path.dirname(d)
open(f"{OUT}/htcondor/tree.txt", "w").write("".join(p + "\n" for p in sorted(tree)))
# the manual's code-block:: condor-submit examples
nblocks = 0
for p in paths:
    if not (p.startswith("docs/") and p.endswith(".rst")):
        continue
    if p == "docs/users-manual/job-sets.rst":
        continue  # htcondor jobset files, another language
    lines = git(H, "show", f"HEAD:{p}").decode().splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)\.\. code-block:: condor-submit\s*$", lines[i])
        if not m:
            i += 1
            continue
        start = i + 1
        j = start
        while j < len(lines) and (lines[j].strip() == "" or lines[j].startswith(":") or lines[j].lstrip().startswith(":") and j == start):
            j += 1
        body = []
        ind = None
        k = j
        while k < len(lines):
            l = lines[k]
            if l.strip() == "":
                body.append("")
                k += 1
                continue
            cur = len(l) - len(l.lstrip())
            if ind is None:
                ind = cur
                if ind <= len(m.group(1)):
                    break
            if cur < ind:
                break
            body.append(l[ind:])
            k += 1
        while body and body[-1] == "":
            body.pop()
        if body:
            name = f"{OUT}/htcondor/{p[:-4]}.L{start}.sub"
            write(name, ("\n".join(body) + "\n").encode())
            nblocks += 1
        i = k
# the file the manual shows next to its `queue A,B,C from external.dat`
write(f"{OUT}/htcondor/docs/faq/users/external.dat", b"3, 1, 10\n2, 8, 4\n")
write(f"{OUT}/htcondor/LICENSE", git(H, "show", "HEAD:LICENSE"))
write(f"{OUT}/htcondor/NOTICE.txt", git(H, "show", "HEAD:NOTICE.txt"))
print(len(subs), "files", nblocks, "doc blocks")

# corpus 2: submit files written by workflow systems
W = {"pegasus": f"{MIRROR}/pegasus-isi+pegasus/repo",
     "pool-exerciser": f"{MIRROR}/htcondor+pool-exerciser/repo",
     "ctrl_bps_htcondor": f"{MIRROR}/lsst+ctrl_bps_htcondor/repo"}
n = 0
for name, gd in W.items():
    for p in ls(gd):
        if re.search(r"\.(sub|submit|jdl)$", p):
            write(f"{OUT}/workflows/{name}/{p}", git(gd, "show", f"HEAD:{p}"))
            n += 1
for name in ("pegasus", "pool-exerciser"):
    write(f"{OUT}/workflows/{name}/LICENSE", git(W[name], "show", "HEAD:LICENSE"))
bps = W["ctrl_bps_htcondor"]
write(f"{OUT}/workflows/ctrl_bps_htcondor/LICENSE",
      git(bps, "show", "HEAD:COPYRIGHT") + b"\n" + git(bps, "show", "HEAD:bsd_license.txt"))
print(n, "workflow files")
