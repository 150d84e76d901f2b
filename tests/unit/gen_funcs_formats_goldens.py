#!/usr/bin/env python3
"""tests/unit/gen_funcs_formats_goldens.py — regenerates the golden table of
tests/unit/test_funcs_formats.c from the real Helm CLI (v4.1.4 at
.tools/bin/helm, or $HELM), with the sentinel/--debug method of
../shared/conformance/functions/README.md (errors rendered unwrapped, Helm's
"Error: " prefix and --debug hint removed). Prints C table rows.
Usage: tests/unit/gen_funcs_formats_goldens.py CASES.json"""
import json, os, subprocess, sys, tempfile

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
helm = os.environ.get("HELM", os.path.join(top, ".tools/bin/helm"))
A, B = "SENTINELAAA", "SENTINELBBB"


def render(src, values, wrap):
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(d + "/templates")
        open(d + "/Chart.yaml", "w").write("apiVersion: v2\nname: vec\nversion: 0.1.0\n")
        open(d + "/values.yaml", "w").write(values or "{}")
        open(d + "/templates/test.yaml", "w").write(A + src + B if wrap else src)
        if wrap:
            open(d + "/templates/zz_bad.yaml", "w").write("a: b: c\n")
        env = dict(os.environ, TZ="UTC")
        args = [helm, "template", "x", d, "--namespace", "ns"] + (["--debug"] if wrap else [])
        p = subprocess.run(args, capture_output=True, env=env)
        # bytes that are not UTF-8 (Go strings may hold them) survive as surrogates
        return p.stdout.decode("utf-8", "surrogateescape"), p.stderr.decode("utf-8", "surrogateescape")


def cstr(s):
    out = []
    for ch in s.encode("utf-8", "surrogateescape"):
        c = chr(ch)
        if c == '"' or c == "\\":
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ch < 0x20 or ch >= 0x7f:
            out.append("\\x%02x\"\"" % ch)
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


for name, src, values in json.load(open(sys.argv[1])):
    out, err = render(src, values, True)
    i = out.find(A)
    if i >= 0:
        j = out.find(B, i)
        print("\t{%s, %s, %s, 0, %s}," % (cstr(name), cstr(src), cstr(values or "{}"), cstr(out[i + len(A):j])))
        continue
    out, err = render(src, values, False)
    msg = err.strip()
    if msg.startswith("Error: "):
        msg = msg[7:]
    hint = "\n\nUse --debug flag to render out invalid YAML"
    if msg.endswith(hint):
        msg = msg[: -len(hint)]
    print("\t{%s, %s, %s, 1, %s}," % (cstr(name), cstr(src), cstr(values or "{}"), cstr(msg)))
