# tests/e2e/ — build fragment (see top Makefile.am).
# kube/ client against kubesim (owned by kube/)
TESTS += tests/e2e/kube_client.sh
EXTRA_DIST += tests/e2e/kube_client.sh

# kubesim helper: the real kubectl and helm CLIs against tests/kubesim
# (tests/e2e/lib.sh starts kubesim; these skip with 77 without the tools).
TESTS += tests/e2e/kubectl_basic.sh tests/e2e/kubectl_auth.sh tests/e2e/helm_cli_podinfo.sh
EXTRA_DIST += tests/e2e/lib.sh tests/e2e/kubectl_basic.sh tests/e2e/kubectl_auth.sh tests/e2e/helm_cli_podinfo.sh
