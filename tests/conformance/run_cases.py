#!/usr/bin/env python3
"""tests/conformance/run_cases.py — renders every case of the Helm
conformance corpus (../shared/conformance/cases/, format in its MANIFEST.md)
with `bulkhead template` and compares with what the real helm v4.1.4 printed:
stdout byte for byte with expected.yaml (after the case's masks), or, for
expected.err cases, exit status 1 and the same stderr (the error line must
match; the full text is reported when it differs).

Prints `N passed, M failed` and the failing case ids. Cases listed in
tests/conformance/cases-known-failures.txt (`<id> <reason>`) may fail; any
other failure makes the run fail (exit 1).

Usage: run_cases.py BULKHEAD CORPUS [CASE...]   (env BH_CASE_TIMEOUT, seconds)

With BH_CONFORMANCE_HELM=/path/to/helm, each chart is first packaged with
`helm package` and the cases are rendered from the .tgz instead of the
directory (the archive loader; .helmignore applied at packaging time).
"""
import json
import os
import re
import subprocess
import sys
import time


def mask(text, regexes):
    for rx in regexes:
        text = re.sub(rx, "MASKED", text)
    return text


def first_diff(a, b):
    al, bl = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(al, bl)):
        if x != y:
            return "line %d:\n  want: %r\n  got:  %r" % (i + 1, x, y)
    if len(al) != len(bl):
        return "want %d lines, got %d" % (len(al), len(bl))
    return "trailing bytes differ"


PACKAGED = {}


def packaged(corpus, chart_rel):
    """the chart packaged by the real helm (BH_CONFORMANCE_HELM), or None"""
    helm = os.environ.get("BH_CONFORMANCE_HELM")
    if not helm:
        return None
    if chart_rel not in PACKAGED:
        import tempfile
        out = tempfile.mkdtemp(prefix="bh-pkg-")
        env = dict(os.environ, HELM_CONFIG_HOME=out, HELM_CACHE_HOME=out, HELM_DATA_HOME=out)
        subprocess.run([helm, "package", os.path.join(corpus, chart_rel), "-d", out], env=env,
                       check=True, capture_output=True)
        tgz = [f for f in os.listdir(out) if f.endswith(".tgz")]
        PACKAGED[chart_rel] = os.path.join(out, tgz[0])
    return PACKAGED[chart_rel]


def run_case(bulkhead, corpus, cid, timeout):
    cdir = os.path.join(corpus, "cases", cid)
    with open(os.path.join(cdir, "case.json")) as f:
        case = json.load(f)
    args = list(case["helmArgs"])
    assert args[0] == "template"
    tgz = packaged(corpus, case["chart"])
    if tgz:
        args = [tgz if a == case["chart"] else a for a in args]
    t0 = time.time()
    try:
        p = subprocess.run([bulkhead] + args, cwd=corpus, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "timed out after %ds" % timeout, 0.0
    dt = time.time() - t0
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    if os.path.exists(os.path.join(cdir, "expected.err")):
        with open(os.path.join(cdir, "expected.err"), encoding="utf-8") as f:
            want = f.read()
        if p.returncode != case.get("exitCode", 1):
            return False, "exit %d, want %d; stderr: %s" % (p.returncode, case.get("exitCode", 1), err[:400]), dt
        if out:
            return False, "stdout not empty on error", dt
        if err == want:
            return True, "", dt
        werr = [l for l in want.splitlines() if l.startswith("Error: ")]
        gerr = [l for l in err.splitlines() if l.startswith("Error: ")]
        if werr and gerr and werr[0] == gerr[0]:
            return True, "", dt
        return False, "stderr differs: " + first_diff(want, err), dt
    with open(os.path.join(cdir, "expected.yaml"), encoding="utf-8") as f:
        want = f.read()
    if p.returncode != 0:
        return False, "exit %d: %s" % (p.returncode, err.strip()[:600]), dt
    rx = case.get("maskRegex", [])
    if mask(out, rx) != mask(want, rx):
        return False, "stdout differs: " + first_diff(mask(want, rx), mask(out, rx)), dt
    if err:
        return False, "unexpected stderr: " + err[:300], dt
    return True, "", dt


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    bulkhead, corpus = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    only = sys.argv[3:]
    here = os.path.dirname(os.path.abspath(__file__))
    known = {}
    kf = os.path.join(here, "cases-known-failures.txt")
    if os.path.exists(kf):
        for line in open(kf, encoding="utf-8"):
            line = line.strip()
            if line and not line.startswith("#"):
                parts = line.split(None, 1)
                known[parts[0]] = parts[1] if len(parts) > 1 else ""
    timeout = int(os.environ.get("BH_CASE_TIMEOUT", "120"))
    ids = sorted(d for d in os.listdir(os.path.join(corpus, "cases"))
                 if os.path.isfile(os.path.join(corpus, "cases", d, "case.json")))
    if only:
        ids = [i for i in ids if i in only]
    passed, failed, unexpected = 0, [], []
    for cid in ids:
        ok, why, dt = run_case(bulkhead, corpus, cid, timeout)
        if ok:
            passed += 1
            print("PASS %-40s %6.2fs" % (cid, dt))
            if cid in known:
                print("     (listed as a known failure, but passes now: remove it from cases-known-failures.txt)")
        else:
            failed.append(cid)
            tag = "KNOWN" if cid in known else "FAIL"
            print("%s %-40s %6.2fs  %s" % (tag, cid, dt, why))
            if cid in known:
                print("     known failure: %s" % known[cid])
            else:
                unexpected.append(cid)
    print("%d passed, %d failed" % (passed, len(failed)))
    if failed:
        print("failing: " + " ".join(failed))
    if unexpected:
        print("unlisted failures: " + " ".join(unexpected))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
