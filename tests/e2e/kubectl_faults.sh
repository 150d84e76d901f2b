#!/usr/bin/env bash
# tests/e2e/kubectl_faults.sh — kubesim's fault injection seen by the real
# kubectl (client-go): 429 with Retry-After is retried after the advertised
# delay, 500/503 are reported as the apiserver's errors, a 409 injected on the
# next update fails a patch once, added latency, and the request log counts it.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
e2e_need_tool kubectl curl python3
kubesim_start
kubectl create configmap f1 --from-literal=k=v >/dev/null || e2e_fail "create"

kubesim_admin POST /_kubesim/faults '{"action":"status","code":429,"retryAfter":1,"count":2,"match":{"resource":"configmaps","verb":"get","name":"f1"}}' >/dev/null \
	|| e2e_fail "add 429 fault"
t0=$(date +%s%N)
out=$(kubectl get configmap f1 -o name 2>&1) || e2e_fail "kubectl did not retry the 429s: $out"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$out" = configmap/f1 ] || e2e_fail "got '$out'"
[ "$ms" -ge 2000 ] || e2e_fail "client-go did not wait Retry-After (1s) twice: ${ms}ms"
n=$(kubesim_log_count verb=get resource=configmaps name=f1 status=429)
[ "$n" = 2 ] || e2e_fail "request log: expected 2 answers 429, got $n"

kubesim_admin POST /_kubesim/faults '{"action":"status","code":500,"message":"etcd is on fire","match":{"resource":"configmaps","verb":"list"}}' >/dev/null
out=$(kubectl get configmaps 2>&1) && e2e_fail "500 not reported: $out"
e2e_expect_contains "$out" "Error from server (InternalError): etcd is on fire" "500"
kubesim_admin POST /_kubesim/faults '{"action":"status","code":503,"count":-1,"match":{"resource":"secrets"}}' >/dev/null
out=$(kubectl get secrets --request-timeout=20s 2>&1) && e2e_fail "503 not reported: $out"
e2e_expect_contains "$out" "the server is currently unable to handle the request" "503"
kubesim_admin DELETE /_kubesim/faults >/dev/null

kubesim_admin POST /_kubesim/faults '{"action":"conflict","match":{"resource":"configmaps","name":"f1"}}' >/dev/null
out=$(kubectl label configmap f1 x=1 2>&1) && e2e_fail "injected 409 not seen: $out"
e2e_expect_contains "$out" 'Operation cannot be fulfilled on configmaps "f1": the object has been modified' "409"
kubectl label configmap f1 x=1 >/dev/null || e2e_fail "the conflict fault must apply once"

kubesim_admin POST /_kubesim/faults '{"action":"latency","ms":1500,"match":{"resource":"configmaps","verb":"get"}}' >/dev/null
t0=$(date +%s%N)
kubectl get configmap f1 >/dev/null || e2e_fail "get with latency"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$ms" -ge 1500 ] || e2e_fail "latency fault not applied: ${ms}ms"
kubectl get configmap f1 >/dev/null || e2e_fail "get after the latency fault"
rules=$(kubesim_admin GET /_kubesim/faults)
e2e_expect_contains "$rules" '"action":"latency"' "fault list"
e2e_expect_contains "$rules" '"remaining":0,"hits":1' "latency fault applied exactly once"
echo "PASS: kubectl_faults"
