#!/usr/bin/env python3
"""tests/conformance/gen_tmpl_diff.py — differential test generator for the
template engine: random templates (literals, fields, variables, pipelines,
if/with/range/else/break/continue, define/template/include, printf verbs
and flags, trim markers, comments, Go builtins) are rendered by the REAL Helm
CLI (v4.1.4) and written as conformance vectors in the lang.jsonl format
(expect / errorFull), on stdout.

Usage: HELM=.tools/bin/helm gen_tmpl_diff.py COUNT SEED [printf] > tmpl-diff.jsonl
(the `printf` mode makes single printf calls with random verbs, flags,
widths and precisions over values of every type)
Vectors whose output depends on the harness (pointer addresses, template
file names) or on Go's 100000-deep template recursion are left out."""
import json, os, random, subprocess, sys, tempfile, shutil, re

_run = subprocess.run
def _run_bytes(*a, **k):
    """subprocess.run without universal newlines (keeps \r), decoded."""
    p = _run(*a, **k)
    p.stdout = p.stdout.decode("utf-8", "replace")
    p.stderr = p.stderr.decode("utf-8", "replace")
    return p
subprocess.run = _run_bytes
HELM = os.environ.get("HELM", os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.tools/bin/helm"))
VALUES = {"s": "str", "n": 5, "f": 3.5, "big": 1000000, "t": True, "b": False, "z": None, "zero": 0,
          "zf": 0.0, "es": "", "one": 1, "neg": -2, "l": [1, 2, 3], "ls": ["a", "b"], "ll": [[1, 2], [3, 4]],
          "el": [], "m": {"x": 1, "y": 2}, "ms": {"b": "B", "a": "A", "c": "C"}, "e": {}, "a": {"b": {"c": "deep"}},
          "lm": [{"name": "n1", "v": 1}, {"name": "n2", "v": 2}], "mixed": [1, "two", 3.5, True, None, {"k": "v"}, [9]],
          "html": "<b>\"x\" & 'y'</b>", "u": "日本é", "tiny": 1e-7, "huge": 1.5e300, "negf": -0.5}
R = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
FIELDS = [".Values." + k for k in VALUES] + [".Values.nope", ".Values.a.b", ".Values.a.b.c", ".Values.m.x",
          ".Values.nope.x", ".Release.Name", ".Chart.Name", ".Values.lm", "$", ".", "$.Values.s",
          ".Capabilities.KubeVersion.Minor", ".Values.ms.a"]
def lit():
    return R.choice(["0", "1", "-3", "42", "3.5", "1e6", "1e-7", "0x1F", "0o17", "'a'", "'\\n'", "1_000",
                     "\"\"", "\"hi\"", "\"a b\"", "\"<no value>\"", "`raw`", "\"\\t\\u00e9\"", "true", "false",
                     "nil", "2.0", "-0.0", "100000", "123456789.0", ".5", "1i", "0x1p-2"])
def verb():
    flags = "".join(R.choice(["", "", "+", "-", "#", " ", "0"]) for _ in range(R.randint(0, 2)))
    w = R.choice(["", "", "3", "8", "*"]); p = R.choice(["", "", ".2", ".0", ".*"])
    return "%" + flags + w + p + R.choice("vvvdsqxXoObeEfgGtcUT%")
def operand(d):
    c = R.random()
    if d > 2 or c < 0.35: return lit()
    if c < 0.7: return R.choice(FIELDS)
    if c < 0.8: return "$x" if ALLOW_X[0] else ".Values.s"
    if c < 0.88: return R.choice(["(index .Values.lm 0).name", "(.Values.m).x", "(.Values.nope).x", "$.Values.lm",
                                  "(.Capabilities.APIVersions.Has \"v1\")", ".Capabilities.KubeVersion.GitVersion",
                                  "(print 1).x", ".Release.IsInstall", "(.Files.Get \"x\")", ".Values.mixed",
                                  "(index .Values.mixed 3).k", "(slice .Values.ls 1)", "(len .Values.u)",
                                  ".Chart.Version", ".Values.a.b.c.d", "$.Values.nope.x"])
    return "(" + pipeline(d + 1) + ")"
def call(d):
    fn = R.choice(["print", "printf", "println", "len", "index", "slice", "eq", "ne", "lt", "le", "gt", "ge",
                   "and", "or", "not", "html", "js", "urlquery", "default", "int", "include", "required", "tpl"])
    if fn == "tpl":
        inner = R.choice(["{{ . }}", "{{ .Values.s }}", "x{{- 1 -}}y", "{{ .nope }}", "{{ print $ }}",
                          "{{ template \\\"d1\\\" . }}", "{{ define \\\"in\\\" }}I{{ end }}{{ include \\\"in\\\" . }}",
                          "{{ .Values.l | len }}", "{{ fail \\\"boom\\\" }}", "{{ if }}"])
        return "tpl \"" + inner + "\" " + R.choice([".", "$", ".Values", ".Values.m", "1", "nil"])
    if fn == "printf":
        fmt = "".join(R.choice(["", "a", " ", "|"]) + verb() for _ in range(R.randint(0, 3)))
        return "printf " + json.dumps(fmt) + "".join(" " + operand(d) for _ in range(R.randint(0, 3)))
    if fn == "include":
        return "include \"d1\" " + operand(d)
    if fn == "required":
        return "required \"msg\" " + operand(d)
    n = {"len": 1, "not": 1, "int": 1, "index": R.randint(1, 3), "slice": R.randint(1, 3), "default": 2,
         "ne": 2, "lt": 2, "le": 2, "gt": 2, "ge": 2}.get(fn, R.randint(1, 3))
    return fn + "".join(" " + operand(d) for _ in range(n))
def pipeline(d=0):
    c = R.random()
    first = call(d) if c < 0.6 else operand(d)
    stages = ""
    for _ in range(R.randint(0, 2) if d < 2 else 0):
        stages += " | " + R.choice(["print", "len", "html", "js", "urlquery", "printf \"%v\"", "not", "index .Values.ls",
                                    "default \"dflt\"", "quote" if False else "print \"p\"", "eq 1", "slice .Values.l"])
    return first + stages
def action(d=0):
    c = R.random()
    tl = R.choice(["{{", "{{", "{{- "]); tr = R.choice(["}}", "}}", " -}}"])
    if d > 2 or c < 0.45: return tl + " " + pipeline() + " " + tr
    if c < 0.55: return tl + " $y := " + pipeline() + " " + tr + body(d)
    if c < 0.62 and ALLOW_X[0]: return "{{ $x = " + pipeline() + " }}"
    if c < 0.72:
        kw = R.choice(["if", "with"])
        s = "{{ %s %s }}%s" % (kw, pipeline(), body(d + 1))
        if R.random() < 0.4: s += "{{ else %s %s }}%s" % (kw, pipeline(), body(d + 1))
        if R.random() < 0.5: s += "{{ else }}" + body(d + 1)
        return s + "{{ end }}"
    if c < 0.85:
        v = R.choice(["", "$i := ", "$i, $v := "] + (["$x = "] if ALLOW_X[0] else []))
        inner = body(d + 1) + R.choice(["", "", "{{ if eq $i 1 }}{{ break }}{{ end }}", "{{ continue }}"] if "$i" in v else [""])
        s = "{{ range %s%s }}%s" % (v, R.choice(FIELDS + ["3", "0"] + (["$x"] if ALLOW_X[0] else [])), inner)
        if R.random() < 0.3: s += "{{ else }}" + body(d + 1)
        return s + "{{ end }}"
    if c < 0.90: return "{{ template \"d1\" " + operand(d) + " }}"
    if c < 0.94: return "{{ block \"b%dBLK\" " % R.randint(0, 9) + operand(d) + " }}" + body(d + 1) + "{{ end }}"
    if c < 0.97: return R.choice(["{{/* c */}}", "{{- /* c */}}", "{{/* c */ -}}", "{{- /* c\n */ -}}"]) + R.choice(["", " ", "\n", "\n\t", "\r\n"])
    return R.choice(["{{ $z := 1 }}{{ if true }}{{ $z = 2 }}{{ $w := 3 }}{{ end }}{{ $z }}",
                     "{{ with $v := .Values.m }}{{ $v.x }}{{ end }}",
                     "{{ range $k, $v := .Values.ms }}{{ $k }}{{ if eq $k \"b\" }}{{ continue }}{{ end }}{{ $v }}{{ else }}E{{ end }}",
                     "{{ range .Values.ll }}{{ range . }}{{ if eq . 2.0 }}{{ break }}{{ end }}{{ . }}{{ end }};{{ end }}",
                     "{{ if .Values.nope }}a{{ else if .Values.z }}b{{ else with .Values.s }}{{ . }}{{ end }}",
                     "{{ range $i, $e := .Values.lm }}{{ $i }}:{{ $e.name }}{{ end }}"])
def body(d):
    return "".join(R.choice(["", "x", " ", "\n", "-"]) + action(d) for _ in range(R.randint(1, 2)))
ALLOW_X = [True]
def template():
    pre = "{{ $x := 1 }}" if R.random() < 0.9 else ""
    ALLOW_X[0] = bool(pre)
    main = body(0)
    ALLOW_X[0] = False
    defs = "{{ define \"d1\" }}[" + body(2) + "]{{ end }}"
    return pre + main + defs

def render(cases):
    """cases: list of template sources; returns list of (out or None, err or None)."""
    res = [None] * len(cases)
    pending = list(range(len(cases)))
    while pending:
        d = tempfile.mkdtemp()
        try:
            os.makedirs(d + "/c/templates")
            open(d + "/c/Chart.yaml", "w").write("apiVersion: v2\nname: vec\nversion: 0.1.0\n")
            open(d + "/c/values.yaml", "w").write(json.dumps(VALUES))
            if len(pending) == 1:
                i = pending[0]
                open(d + "/c/templates/test.yaml", "w", newline="").write(cases[i])
                p = subprocess.run([HELM, "template", "x", d + "/c", "--namespace", "ns"], capture_output=True)
                if p.returncode == 0:
                    pass  # handled below with sentinels
                else:
                    e = p.stderr.strip()
                    e = e[7:] if e.startswith("Error: ") else e
                    e = e.replace("\n\nUse --debug flag to render out invalid YAML", "")
                    res[i] = (None, e)
                    pending = []
                    continue
                shutil.rmtree(d + "/c/templates"); os.makedirs(d + "/c/templates")
            for i in pending:
                open(d + "/c/templates/t%04d.yaml" % i, "w", newline="").write("QQS%dQQ" % i + cases[i] + "QQE%dQQ" % i)
            open(d + "/c/templates/zzbad.yaml", "w").write("a: b: c: [\n")
            p = subprocess.run([HELM, "template", "x", d + "/c", "--namespace", "ns", "--debug"], capture_output=True)
            text = p.stdout + p.stderr
            m = re.search(r"Error: (?:template: |parse error at \(|execution error at \()?vec/templates/t(\d{4})\.yaml", text)
            if m and "YAML parse error" not in text[m.start():m.start()+200]:
                bad = int(m.group(1))
                pending.remove(bad)
                # re-render it alone to get the exact error text
                d2 = tempfile.mkdtemp()
                os.makedirs(d2 + "/c/templates")
                open(d2 + "/c/Chart.yaml", "w").write("apiVersion: v2\nname: vec\nversion: 0.1.0\n")
                open(d2 + "/c/values.yaml", "w").write(json.dumps(VALUES))
                open(d2 + "/c/templates/test.yaml", "w", newline="").write(cases[bad])
                p2 = subprocess.run([HELM, "template", "x", d2 + "/c", "--namespace", "ns"], capture_output=True)
                shutil.rmtree(d2)
                e = p2.stderr.strip()
                e = e[7:] if e.startswith("Error: ") else e
                e = e.replace("\n\nUse --debug flag to render out invalid YAML", "")
                res[bad] = (None, e) if p2.returncode else ("?", None)
                continue
            for i in pending:
                a = text.find("QQS%dQQ" % i); b = text.find("QQE%dQQ" % i)
                res[i] = (text[a + len("QQS%dQQ" % i):b], None) if a >= 0 and b >= 0 else ("?", None)
            pending = []
        finally:
            shutil.rmtree(d)
    return res

PF_ARGS = ["0", "1", "-3", "42", "255", "3.5", "-0.5", "1e6", "1e-7", "123456.789", "\"\"", "\"hi\"",
           "\"日本é\"", "\"a\\tb\"", "true", "false", "nil", ".Values.l", ".Values.m", ".Values.mixed", ".Values.e",
           ".Values.el", ".Values.nope", ".Values.n", ".Values.big", ".Values.tiny", ".Values.huge", ".Values.negf",
           "'x'", "1i", "(1.5-2i)", ".Values.ls", ".Values.ms", ".Values.z", ".Values.html", "0x1F", "-0.0",
           ".Capabilities.KubeVersion", ".Values.lm"]
def printf_case():
    def fverb():
        flags = "".join(R.choice(["+", "-", "#", " ", "0"]) for _ in range(R.randint(0, 3)))
        w = R.choice(["", "", "1", "5", "12"]); p = R.choice(["", "", ".0", ".1", ".3", ".10", "."])
        return "%" + flags + w + p + R.choice("vvdsqxXoObeEfFgGtcUT")
    fmt = "|".join(fverb() for _ in range(R.randint(1, 3)))
    args = " ".join(R.choice(PF_ARGS) for _ in range(R.randint(1, 3)))
    return "{{ printf %s %s }}" % (json.dumps(fmt), args)

n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
if len(sys.argv) > 3 and sys.argv[3] == "printf":
    template = printf_case
cases = [template().replace("\"d1\"", "\"d%d\"" % i).replace("BLK\"", "_%d\"" % i) for i in range(n)]
res = render(cases)
for i, (src, (out, err)) in enumerate(zip(cases, res)):
    if out == "?": continue
    blob = (out or "") + (err or "")
    if "0xc0" in blob or "/templates/t0" in blob or "%2Ft0" in blob or "maximum template depth" in blob:
        continue
    v = {"id": "diff-%04d" % i, "topic": "diff", "template": src, "values": VALUES}
    if err is not None:
        if len(err) > 20000 or "level=" in err: continue
        v["expectError"] = err; v["errorFull"] = err
    else:
        v["expect"] = out
    print(json.dumps(v, ensure_ascii=False))
