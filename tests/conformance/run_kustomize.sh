#!/bin/sh
# tests/conformance/run_kustomize.sh — automake test: every kustomize
# conformance case (tests/conformance/kustomize/*/) through helm/kustomize,
# compared byte for byte with the output of the real `kubectl kustomize`
# (CASE/expected.yaml, made by gen_kustomize_goldens.sh) after putting the
# documents of both in the same order (kustomize sorts resources by kind;
# bulkhead keeps Helm's order). A case whose golden is expected.err must
# fail with that text exactly (kubectl's "error: " and kustomize's error,
# as Flux's post-renderer reports it after Helm's "error while running
# post render on files: "), unless the case has a file any-error saying
# why its text cannot be the same (kustomize panics: a Go stack trace;
# a Go pointer printed). Prints a count; fails on any difference.
src=${BH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BH_BUILDDIR:-$PWD}
exec python3 - "$build/tests/conformance/run_kustomize" "$src/tests/conformance/kustomize" <<'PY'
import os, subprocess, sys
tool, root = sys.argv[1], sys.argv[2]
def docs(text):
    out, cur = [], []
    for line in text.splitlines(keepends=True):
        if line == '---\n':
            out.append(''.join(cur)); cur = []
        else:
            cur.append(line)
    out.append(''.join(cur))
    return sorted(d for d in out if d)
cases = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
ok = fail = 0
for c in cases:
    d = os.path.join(root, c)
    p = subprocess.run([tool, d], capture_output=True, text=True)
    if os.path.exists(os.path.join(d, 'expected.err')):
        good = p.returncode != 0
        why = 'kustomize fails, bulkhead succeeded'
        if good and not os.path.exists(os.path.join(d, 'any-error')):
            want = open(os.path.join(d, 'expected.err')).read()
            good = p.stderr == want
            why = 'error text differs:\n--- want\n%s--- got\n%s' % (want, p.stderr)
    else:
        want = open(os.path.join(d, 'expected.yaml')).read()
        good = p.returncode == 0 and docs(p.stdout) == docs(want)
        why = p.stderr.strip() if p.returncode else 'output differs:\n--- want\n%s--- got\n%s' % (
            '---\n'.join(docs(want)), '---\n'.join(docs(p.stdout)))
    if good:
        ok += 1
    else:
        fail += 1
        print('FAIL %s: %s' % (c, why))
print('kustomize conformance: %d/%d cases identical to kubectl kustomize' % (ok, ok + fail))
sys.exit(1 if fail or not ok else 0)
PY
