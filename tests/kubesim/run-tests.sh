#!/bin/sh
# tests/kubesim/run-tests.sh — runs kubesim's Python unit and server tests
# (python3 -m unittest; kubesim needs the h2 package, python3-h2); exit 0/1,
# 77 if no python3.
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not installed"; exit 77; }
cd "$here" || exit 1
PYTHONDONTWRITEBYTECODE=1 exec python3 -m unittest -v test_units test_server test_miniyaml 2>&1
