#!/usr/bin/env python3
"""tests/conformance/run_vectors_cli.py — runs the template conformance
vectors (../shared/conformance/functions/{lang,funcs}.jsonl) through the
`bulkhead template --debug` command, rendering charts the way the vectors
were captured from Helm 4.1.4 (functions/README.md, "How the output was
captured"; FUNCTIONS.md, "Vector format and harness contract"):

* Chart.yaml (`apiVersion: v2`, `name: vec`, `version: 0.1.0`, or
  files["Chart.yaml"]), values.yaml from `valuesYaml` (raw) or `values`
  (JSON text, which Helm reads as YAML), every entry of `files`;
* `set` -> `--set` flags in order; `release` -> release name, `--namespace`,
  `--is-upgrade`; `capabilities` -> `--kube-version`, `--api-versions`;
  TZ=UTC;
* expect/expectRegex vectors: templates/test.yaml holds
  SENTINEL_A + template + SENTINEL_B, and one more template is deliberately
  invalid YAML, so `--debug` prints every rendered file raw; the output is
  the text between the sentinels;
* error vectors: the template unwrapped as templates/test.yaml, alone; the
  error is stderr from "Error: " on (Helm's "Use --debug flag" hint removed),
  compared exactly with errorFull, else it must contain expectError.

A chart shares one namespace of `define`s, so a vector that defines, calls
or names templates (define/block/template/include/tpl/.Template), has
`files`, or expects an error gets a chart of its own. The others are
rendered BH_VECTOR_BATCH (default 40) to a chart when their values, --set,
release and capabilities are the same, each as templates/<id>.yaml (the
README's "each vector that uses define/block was rendered in a chart of its
own"); a vector that does not pass in a shared chart is rendered again
alone and that verdict counts. BH_VECTOR_BATCH=1 renders every vector alone.
BH_VECTOR_JOBS (default 2) processes run at a time.

Prints per file `N passed, M failed` and the failing ids. Ids listed in
vectors-known-failures.txt (the engine's, shared with run_vectors) or in
vectors-cli-known-failures.txt (failures of the CLI path only), both read at
run time as `id<TAB>why`, may fail; any other failure makes the run fail
(exit 1). With --inproc RUN_VECTORS (tests/conformance/run_vectors) the
in-process runner runs alongside and every vector whose verdict differs
between the two paths is reported (both judged against the expectations
only).

Usage: run_vectors_cli.py [--inproc RUN_VECTORS] [--verbose] [--only ID,...]
                          BULKHEAD JSONL...
BULKHEAD may also be the real helm: the harness then checks itself.
Environment: BH_VECTOR_JOBS, BH_VECTOR_BATCH, BH_VECTOR_TIMEOUT (seconds per
chart, default 300).
"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SENT_A = "BHVECa7q3"
SENT_B = "BHVECz4k8"
INVALID_NAME = "templates/zzz-bh-invalid.yaml"
INVALID_TEXT = "a: [\n"
HINT = "\n\nUse --debug flag to render out invalid YAML"
DEFAULT_CHART = "apiVersion: v2\nname: vec\nversion: 0.1.0\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(text.encode("utf-8", "surrogatepass"))


# what goyaml's reader accepts (yaml_parser_update_buffer); anything else is
# written as a JSON \\u escape, which Helm reads back as the same character
YAML_BAD = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def values_text(values):
    """`values` as JSON text for values.yaml (raw UTF-8, as the oracle wrote it)"""
    text = json.dumps(values, ensure_ascii=False)
    return YAML_BAD.sub(lambda m: "\\u%04x" % ord(m.group(0)), text)


def chart_name(v):
    cy = v.get("files", {}).get("Chart.yaml")
    if cy is None:
        return "vec"
    m = re.search(r"^name:[ \t]*['\"]?([^'\"\s#]+)", cy, re.M)
    return m.group(1) if m else "vec"


def is_error(v):
    return "expectError" in v or "errorFull" in v


# a vector may share a chart with others only when nothing in it can see the
# other files: no definitions or calls of templates, no .Template, no files
SOLO_WORDS = re.compile(r"define|block|template|include|tpl|Template")


def batch_key(v):
    """vectors with the same key may be rendered by one process; None = alone"""
    if is_error(v) or "files" in v or SOLO_WORDS.search(v["template"]):
        return None
    return json.dumps([v.get("values"), v.get("valuesYaml"), v.get("set"), v.get("release"),
                       v.get("capabilities")], sort_keys=True)


def build_chart(vecs, root):
    """writes the chart of vecs (one vector, or several with one batch_key)
    under root/vec; returns the bulkhead args and each vector's file name"""
    v = vecs[0]
    cdir = os.path.join(root, "vec")
    os.makedirs(os.path.join(cdir, "templates"))
    files = v.get("files", {})
    for name, content in files.items():
        if name == "templates/test.yaml":
            continue  # the vector's template is the source of truth
        write(os.path.join(cdir, name), content)
    if "Chart.yaml" not in files:
        write(os.path.join(cdir, "Chart.yaml"), DEFAULT_CHART)
    if "valuesYaml" in v:
        write(os.path.join(cdir, "values.yaml"), v["valuesYaml"])
    elif "values" in v:
        write(os.path.join(cdir, "values.yaml"), values_text(v["values"]))
    names = []
    if is_error(v):
        write(os.path.join(cdir, "templates/test.yaml"), v["template"])
        names.append("templates/test.yaml")
    else:
        for w in vecs:
            name = "templates/test.yaml" if len(vecs) == 1 else "templates/%s.yaml" % w["id"]
            write(os.path.join(cdir, name), SENT_A + w["template"] + SENT_B)
            names.append(name)
        write(os.path.join(cdir, INVALID_NAME), INVALID_TEXT)
    rel = v.get("release", {})
    args = ["template", rel.get("name", "x"), cdir, "--namespace", rel.get("namespace", "ns"), "--debug"]
    if rel.get("isUpgrade"):
        args.append("--is-upgrade")
    caps = v.get("capabilities", {})
    if "kubeVersion" in caps:
        args += ["--kube-version", caps["kubeVersion"]]
    for a in caps.get("apiVersions", []):
        args += ["--api-versions", a]
    for s in v.get("set", []):
        args += ["--set", s]
    return args, names


def error_text(stderr):
    """the CLI's error message: from the first line starting "Error: " on"""
    m = re.search(r"(?:^|\n)Error: ", stderr)
    if not m:
        return None
    msg = stderr[m.end():]
    if msg.endswith("\n"):
        msg = msg[:-1]
    if msg.endswith(HINT):
        msg = msg[: -len(HINT)]
    return msg


def rendered_text(stdout, name):
    """the text between the sentinels of NAME's raw --debug section"""
    head = "# Source: %s\n%s" % (name, SENT_A)
    i = stdout.find(head)
    if i < 0:
        return None
    start = i + len(head)
    # the closing sentinel ends the file's text: what follows is the next
    # file's header or the end of the output
    j = start
    while True:
        j = stdout.find(SENT_B, j)
        if j < 0:
            return None
        rest = stdout[j + len(SENT_B):]
        if rest == "\n" or rest.startswith("\n---\n# Source: "):
            return stdout[start:j]
        j += 1


def short(s, n=100):
    s = json.dumps(s, ensure_ascii=False)[1:-1]
    return s if len(s) <= n else s[:n] + "..."


def full_match(pattern, text):
    try:
        return re.fullmatch(pattern, text, re.S) is not None
    except re.error:
        return False


def judge(v, name, code, out, err):
    """(pass, reason) of vector v whose file is NAME in one run's output"""
    if code < 0 or code > 1:
        return False, "exit status %d: %s" % (code, short(err, 300))
    if is_error(v):
        msg = error_text(err) if code else None
        want = v.get("errorFull", v.get("expectError"))
        if msg is None:
            return False, "no error: want \"%s\" got \"%s\"" % (short(want), short(out, 140))
        if "errorFull" in v:
            if msg != v["errorFull"]:
                return False, "error text: want \"%s\" got \"%s\"" % (short(want), short(msg, 140))
        elif v["expectError"] not in msg:
            return False, "error: want \"%s\" got \"%s\"" % (short(want), short(msg, 140))
        return True, ""
    got = rendered_text(out, "%s/%s" % (chart_name(v), name))
    msg = error_text(err)
    if got is None:
        return False, "unexpected error: \"%s\"" % short(msg if msg is not None else err, 300)
    # the deliberately invalid file must be what stopped the run
    if msg is None or not msg.startswith("YAML parse error on "):
        return False, "render error besides the raw output: \"%s\"" % short(msg or err, 300)
    if "expect" in v:
        if got != v["expect"]:
            return False, "output: want \"%s\" got \"%s\"" % (short(v["expect"]), short(got, 140))
    elif not full_match(v["expectRegex"], got):
        return False, "output (regex): want \"%s\" got \"%s\"" % (short(v["expectRegex"]), short(got, 140))
    return True, ""


def run_chart(bulkhead, vecs, timeout):
    """renders vecs in one chart; [(pass, reason)] in order, and seconds"""
    root = tempfile.mkdtemp(prefix="bh-vec-")
    try:
        args, names = build_chart(vecs, root)
        env = dict(os.environ, TZ="UTC", HELM_NAMESPACE="")
        t0 = time.time()
        try:
            p = subprocess.run([bulkhead] + args, cwd=root, env=env, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return [(False, "timed out after %ds" % timeout)] * len(vecs), float(timeout)
        dt = time.time() - t0
    finally:
        shutil.rmtree(root, ignore_errors=True)
    out = p.stdout.decode("utf-8", "surrogateescape")
    err = p.stderr.decode("utf-8", "surrogateescape")
    return [judge(v, n, p.returncode, out, err) for v, n in zip(vecs, names)], dt


def run_batch(bulkhead, vecs, timeout):
    """[(pass, reason, seconds)] for vecs; a vector that does not pass in a
    shared chart is rendered again alone, and that verdict counts"""
    if len(vecs) == 1:
        res, dt = run_chart(bulkhead, vecs, timeout)
        return [res[0] + (dt,)]
    res, dt = run_chart(bulkhead, vecs, timeout)
    out = []
    for v, r in zip(vecs, res):
        if r[0]:
            out.append(r + (dt,))
        else:
            solo, sdt = run_chart(bulkhead, [v], timeout)
            out.append(solo[0] + (sdt,))
    return out


def load_known(path):
    known = {}
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                k, _, why = line.partition("\t")
                known[k.strip()] = why
    return known


def start_inproc(run_vectors, jsonls):
    """the in-process runner, started in the background with an empty
    known-failures list so it names every failing vector"""
    fd, empty = tempfile.mkstemp(prefix="bh-vec-known-")
    os.close(fd)
    p = subprocess.Popen([run_vectors, empty] + jsonls, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=dict(os.environ, TZ="UTC"))
    return p, empty


def finish_inproc(proc):
    p, empty = proc
    out = p.communicate()[0].decode("utf-8", "replace")
    os.unlink(empty)
    fails, summaries = set(), 0
    for line in out.splitlines():
        if line.startswith("  failing:"):
            fails.update(line.split()[1:])
        elif re.match(r"\S+: \d+ passed, \d+ failed$", line):
            summaries += 1
    if p.returncode not in (0, 1) or summaries == 0:
        print("in-process runner did not finish (exit status %d): %s" % (p.returncode, short(out[-600:], 600)))
        return None
    return fails


def main(argv):
    inproc, verbose, only = None, False, None
    while argv and argv[0].startswith("--"):
        a = argv.pop(0)
        if a == "--inproc" and argv:
            inproc = argv.pop(0)
        elif a == "--verbose":
            verbose = True
        elif a == "--only" and argv:
            only = set(argv.pop(0).split(","))
        else:
            print(__doc__)
            return 2
    if len(argv) < 2:
        print(__doc__)
        return 2
    bulkhead = os.path.abspath(argv[0])
    jsonls = [os.path.abspath(a) for a in argv[1:]]
    here = os.path.dirname(os.path.abspath(__file__))
    known_path = os.path.join(here, "vectors-known-failures.txt")
    known = load_known(known_path)
    known.update(load_known(os.path.join(here, "vectors-cli-known-failures.txt")))
    jobs = int(os.environ.get("BH_VECTOR_JOBS", "2"))
    batch = int(os.environ.get("BH_VECTOR_BATCH", "40"))
    nproc = 0
    timeout = int(os.environ.get("BH_VECTOR_TIMEOUT", "300"))
    proc = start_inproc(inproc, jsonls) if inproc and not only else None

    t0 = time.time()
    unlisted, cli_fails, slow = [], set(), []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for path in jsonls:
            vecs = []
            for line in open(path, encoding="utf-8"):
                if line.strip():
                    v = json.loads(line)
                    if only is None or v["id"] in only:
                        vecs.append(v)
            # chunks of vectors that may share a chart (file order kept)
            groups, chunks = {}, []
            for v in vecs:
                k = batch_key(v) if batch > 1 else None
                if k is None:
                    chunks.append([v])
                    continue
                if k not in groups or len(groups[k]) >= batch:
                    groups[k] = []
                    chunks.append(groups[k])
                groups[k].append(v)
            results = {}
            for chunk, res in zip(chunks, pool.map(lambda c: run_batch(bulkhead, c, timeout), chunks)):
                for v, r in zip(chunk, res):
                    results[v["id"]] = r
                if res[0][2] > 10:
                    slow.append("%s%s %.0fs" % (chunk[0]["id"], "" if len(chunk) == 1 else
                                                "..%s" % chunk[-1]["id"], res[0][2]))
            nproc += len(chunks)
            passed, failed = 0, []
            for v in vecs:
                ok, why, dt = results[v["id"]]
                vid = v["id"]
                if ok:
                    passed += 1
                    if vid in known:
                        print("  now passing through the CLI (listed as a known failure): %s" % vid)
                    continue
                failed.append(vid)
                cli_fails.add(vid)
                if vid not in known:
                    unlisted.append(vid)
                if verbose or vid not in known:
                    print("  FAIL %s%s: %s" % (vid, " (known)" if vid in known else "", why))
            print("%s: %d passed, %d failed" % (os.path.basename(path), passed, len(failed)))
            if failed:
                print("  failing: " + " ".join(failed))
            sys.stdout.flush()
    print("CLI run: %.0fs, %d worker(s), %d chart(s) of up to %d vector(s)" % (time.time() - t0, jobs, nproc, batch))
    if slow:
        print("  charts slower than 10s: " + ", ".join(slow))
    if proc:
        lib_fails = finish_inproc(proc)
    if proc and lib_fails is not None:
        only_cli = sorted(cli_fails - lib_fails)
        only_lib = sorted(lib_fails - cli_fails)
        if not only_cli and not only_lib:
            print("CLI and in-process runner agree on every vector (%d failing in both)" % len(cli_fails))
        if only_cli:
            print("failing through the CLI only (in-process passes): " + " ".join(only_cli))
        if only_lib:
            print("failing in-process only (CLI passes): " + " ".join(only_lib))
    if unlisted:
        print("%d failing vector(s) listed neither in vectors-known-failures.txt nor in "
              "vectors-cli-known-failures.txt: %s" % (len(unlisted), " ".join(unlisted)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
