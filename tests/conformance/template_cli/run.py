#!/usr/bin/env python3
"""tests/conformance/template_cli/run.py — `bulkhead template` against goldens
captured from the real `helm template` (v4.1.4).

  run.py gen HELM       runs HELM on every case of cases.txt and writes
                        goldens.jsonl (stdout, stderr, exit status) and
                        helm-help.txt (`helm template --help`)
  run.py MODE TOOL DIR  the same with another folder's cases.txt, charts/
                        and goldens.jsonl (no flag-list checks)
  run.py check BULKHEAD runs BULKHEAD on the same cases and compares; also
                        checks that `BULKHEAD template --help` lists exactly
                        the flags of helm-help.txt (and, when a `helm` is on
                        PATH, that helm-help.txt is still that helm's help,
                        so a new helm flag fails loudly)

cases.txt: one case a line, `NAME: ARGS` (ARGS split as the shell would,
run in charts/ with HOME set to an empty directory); `#` lines are comments.
A case may end with `  ## s/REGEX/REPL/` to normalise both outputs
(e.g. the time in --generate-name). Goldens are never written from
bulkhead's output."""
import json, os, re, shlex, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def cases():
    out = []
    with open(os.path.join(HERE, "cases.txt")) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, _, rest = line.partition(": ")
            norm = None
            if "  ## s/" in rest:
                rest, _, sub = rest.partition("  ## s/")
                pat, repl, _ = sub.split("/")
                norm = (pat, repl)
            out.append((name.strip(), shlex.split(rest), norm))
    return out


def run(tool, args, home):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LANG": "C"}
    p = subprocess.run([tool, "template"] + args, cwd=os.path.join(HERE, "charts"),
                       env=env, capture_output=True, timeout=120)
    return {"rc": p.returncode, "stdout": p.stdout.decode("utf-8", "replace"),
            "stderr": p.stderr.decode("utf-8", "replace")}


def normalise(r, norm, home):
    r = dict(r)
    for k in ("stdout", "stderr"):
        r[k] = r[k].replace(home, "$HOME").replace(os.path.join(HERE, "charts"), "$CHARTS")
        # bulkhead's own flags (documented after helm's in --help)
        r[k] = re.sub(r"\nBulkhead Flags:\n(?:      --.*\n)+", "", r[k])
        # the tool's own name in usage texts
        r[k] = re.sub(r"\b(helm|bulkhead) template\b", "TOOL template", r[k])
        if norm:
            r[k] = re.sub(norm[0], norm[1], r[k])
    return r


def help_flags(text):
    """(name, shorthand, type) of every flag line of a --help text."""
    flags = set()
    text = text.split("\nBulkhead Flags:")[0]  # bulkhead's own, not helm's
    for m in re.finditer(r"^\s+(?:-(\w), )?--([\w-]+)(?: (\S+))?", text, re.M):
        flags.add((m.group(2), m.group(1) or "", m.group(3) or ""))
    return flags


def scrub_outdir(home):
    shutil.rmtree(os.path.join(HERE, "charts", "out"), ignore_errors=True)


def main():
    global HERE
    mode, tool = sys.argv[1], sys.argv[2]
    flags = len(sys.argv) < 4
    if not flags:
        HERE = os.path.abspath(sys.argv[3])
    if os.sep in tool:
        tool = os.path.abspath(tool)
    home = tempfile.mkdtemp(prefix="bh-tcli-")
    try:
        if mode == "gen":
            res = []
            for name, args, norm in cases():
                scrub_outdir(home)
                r = normalise(run(tool, args, home), norm, home)
                r["name"] = name
                res.append(r)
            scrub_outdir(home)
            with open(os.path.join(HERE, "goldens.jsonl"), "w") as f:
                for r in res:
                    f.write(json.dumps(r, sort_keys=True) + "\n")
            if not flags:
                print("wrote %d goldens" % len(res))
                return 0
            h = run(tool, ["--help"], home)
            with open(os.path.join(HERE, "helm-help.txt"), "w") as f:
                f.write(h["stdout"].replace(home, "$HOME"))
            print("wrote %d goldens" % len(res))
            return 0
        gold = {}
        with open(os.path.join(HERE, "goldens.jsonl")) as f:
            for line in f:
                r = json.loads(line)
                gold[r["name"]] = r
        fails = 0
        n = bad = 0
        for name, args, norm in cases():
            if name not in gold:
                print("FAIL %s: no golden (run `run.py gen helm`)" % name)
                fails += 1
                continue
            scrub_outdir(home)
            r = normalise(run(tool, args, home), norm, home)
            g = gold[name]
            n += 1
            for k in ("rc", "stdout", "stderr"):
                if r[k] != g[k]:
                    fails += 1
                    bad += 1
                    print("FAIL %s (%s): %s\n  helm:     %r\n  bulkhead: %r" %
                          (name, k, shlex.join(args), g[k], r[k]))
                    break
        scrub_outdir(home)
        if not flags:
            print("%d/%d cases match helm" % (n - bad, n))
            return 1 if fails else 0
        # the flag list
        with open(os.path.join(HERE, "helm-help.txt")) as f:
            helm_help = f.read()
        want = help_flags(helm_help)
        got = help_flags(run(tool, ["--help"], home)["stdout"])
        for fl in sorted(want - got):
            print("FAIL flag missing from bulkhead template --help: %s" % (fl,))
            fails += 1
        for fl in sorted(got - want):
            print("FAIL flag bulkhead lists but helm does not: %s" % (fl,))
            fails += 1
        covered = set()
        for _, args, _ in cases():
            for a in args:
                m = re.match(r"--([\w-]+)", a) or re.match(r"-(\w)", a)
                if m:
                    covered.add(m.group(1))
        for fl in sorted(want):
            if fl[0] not in covered and fl[1] not in covered:
                print("FAIL flag --%s has no case in cases.txt" % fl[0])
                fails += 1
        live = shutil.which("helm")
        if live:
            live_help = run(live, ["--help"], home)["stdout"].replace(home, "$HOME")
            if help_flags(live_help) != want:
                print("FAIL the installed helm's `template --help` differs from helm-help.txt "
                      "(new or changed flags): regenerate with `run.py gen helm` and handle them")
                fails += 1
        print("%d/%d cases match helm; %d flags checked" % (n - bad, n, len(want)))
        return 1 if fails else 0
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
