#!/usr/bin/env bash
# sandbox/survey.sh — the worker's syscall survey (method and results in
# sandbox/SYSCALLS.md). Runs, under `strace -f`, with the worker's own
# filter in survey mode (outside calls logged and allowed, not trapped):
#   1. every chart of the conformance corpus through bulkheadd (the e2e tests
#      tests/e2e/corpus_controller.sh and corpus_archives.sh, whose worker is
#      tests/e2e/survey_worker behind strace);
#   2. every fuzz corpus (tests/fuzz/corpus/<target>, and tests/fuzz/out/
#      <target>.corpus when a fuzz run left one) through sandbox/survey_fuzz.c.
# Prints each system call made after the lock-down, with a count and a first
# example, per source. Usage: sandbox/survey.sh [BUILDDIR] [OUTDIR]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
out=${2:-$(mktemp -d /tmp/bh-survey.XXXXXX)}
mkdir -p "$out/corpus" "$out/fuzz"
command -v strace >/dev/null || { echo "survey: strace not installed"; exit 1; }
export PATH="$top/.tools/bin:/work/main/.tools/bin:$PATH"

[ -n "${SURVEY_REPORT_ONLY:-}" ] && { out=$SURVEY_REPORT_ONLY; SURVEY_TESTS=; }

# 1. the corpus through bulkheadd
cat >"$out/worker" <<SH
#!/bin/sh
exec $(command -v strace) -f -qq -o "$out/corpus/w.\$\$" "$build/tests/e2e/survey_worker" "\$@"
SH
chmod +x "$out/worker"
for t in ${SURVEY_TESTS-corpus_controller corpus_archives}; do
	[ -f "$top/tests/e2e/$t.sh" ] || continue
	BH_BUILDDIR="$build" SK_WORKER_PATH="$out/worker" bash "$top/tests/e2e/$t.sh" >"$out/$t.log" 2>&1
	echo "survey: $t.sh exit $? (log $out/$t.log)"
done

# 2. the fuzz corpora through the locked-down render path
libs=$(find "$build" -name 'libbh*.a' ! -path '*/tests/*' | sort | tr '\n' ' ')
for src in $([ -n "${SURVEY_REPORT_ONLY:-}" ] || echo "$top"/tests/fuzz/fuzz_*.c); do
	t=$(basename "$src" .c)
	inputs=()
	for d in "$top/tests/fuzz/corpus/$t" "$top/tests/fuzz/out/$t.corpus" $(sed -n 's/.*FUZZ_SEEDS:\(.*\)/\1/p' "$src"); do
		[ -d "$d" ] || d="$top/$d"
		[ -d "$d" ] && while IFS= read -r f; do inputs+=("$f"); done < <(find "$d" -type f | head -2000)
	done
	[ ${#inputs[@]} -gt 0 ] || continue
	if ! gcc -std=c11 -O1 -D_GNU_SOURCE -I"$top" -I"$build" -DBH_SRCDIR="\"$top\"" -DPACKAGE_VERSION='"survey"' \
		$(pkg-config --cflags jansson yaml-0.1 libarchive 2>/dev/null) -o "$out/fuzz/$t" \
		"$top/sandbox/survey_fuzz.c" "$src" "$top/worker/prepare.c" -Wl,--allow-multiple-definition \
		-Wl,--start-group $libs -Wl,--end-group -ljansson -lyaml -lz -lpcre2-8 -lcrypto -lssl -lcurl \
		-lseccomp -lcap -lz -lm 2>"$out/fuzz/$t.build.log"; then
		echo "survey: $t does not build (see $out/fuzz/$t.build.log)"
		continue
	fi
	strace -f -qq -o "$out/fuzz/$t.trace" "$out/fuzz/$t" "${inputs[@]}" >/dev/null 2>"$out/fuzz/$t.log"
	echo "survey: $t: ${#inputs[@]} inputs, exit $?"
done

# 3. what happened after each process's seccomp()
report() {
	python3 - "$@" <<'PY'
import collections, re, sys
calls = collections.Counter()
first = {}
for path in sys.argv[1:]:
    locked = set()
    for line in open(path, errors="replace"):
        m = re.match(r"(\d+)\s+(\w+)\((.*)", line)
        if not m:
            continue
        pid, name, rest = m.groups()
        if name == "seccomp" and "SECCOMP_SET_MODE_FILTER" in rest and rest.rstrip().endswith("= 0"):
            locked.add(pid)
            continue
        if pid in locked:
            calls[name] += 1
            first.setdefault(name, (name + "(" + rest)[:150])
for name, n in sorted(calls.items()):
    print("%-16s %8d  %s" % (name, n, first[name]))
PY
}
echo "== after lock-down, corpus through bulkheadd ($(ls "$out"/corpus | wc -l) worker processes)"
ls "$out"/corpus/w.* >/dev/null 2>&1 && report "$out"/corpus/w.*
echo "== after lock-down, fuzz corpora"
ls "$out"/fuzz/*.trace >/dev/null 2>&1 && report "$out"/fuzz/*.trace
