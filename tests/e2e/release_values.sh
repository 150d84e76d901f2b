#!/usr/bin/env bash
# tests/e2e/release_values.sh — .spec.valuesFrom composed as Flux does: a
# ConfigMap's values.yaml, a Secret key placed at a targetPath (Helm --set
# syntax), an optional missing reference skipped, .spec.values merged over
# the references, and targetPath values over everything, inline values
# included (the v2 document's precedence); a quoted targetPath value stays a
# string (Flux's ReplacePathValue), an unquoted one is typed as --set types it;
# a change of a referenced ConfigMap upgrades on the next reconcile; a
# missing required reference is a ValuesError; values.schema.json is
# enforced unless .spec.install/.spec.upgrade.disableSchemaValidation.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/release/app" team-v app
kubectl create configmap base -n team-v --from-literal=values.yaml="$(printf 'message: from-configmap\nreplicas: 2\nextra:\n  a: 1\n')" >/dev/null
kubectl create secret generic secret-msg -n team-v --from-literal=msg=from-secret --from-literal=flag="'true'" >/dev/null
kubectl create configmap num -n team-v --from-literal=num=42 >/dev/null
sk_apply_hr team-v web app "  valuesFrom:
  - kind: ConfigMap
    name: base
  - kind: Secret
    name: secret-msg
    valuesKey: msg
    targetPath: extra.secret
  - kind: ConfigMap
    name: absent
    optional: true
  - kind: Secret
    name: secret-msg
    valuesKey: flag
    targetPath: extra.flag
  - kind: ConfigMap
    name: num
    valuesKey: num
    targetPath: extra.num
  values:
    extra:
      b: 2
      secret: inline-loses"
r=$(sk_wait_ready team-v web 60)
e2e_expect_contains "$r" "True|InstallSucceeded|" "Ready"
vals=$(helm get values web -n team-v -o json) || sk_fail "helm get values"
echo "$vals" | python3 -c 'import json,sys; v=json.load(sys.stdin); sys.exit(v != {"message": "from-configmap", "replicas": 2, "extra": {"a": 1, "b": 2, "secret": "from-secret", "flag": "true", "num": 42}})' \
	|| sk_fail "composed values: $vals"
[ "$(kubectl get cm web-config -n team-v -o jsonpath='{.data.message}')" = from-configmap ] || sk_fail "web-config"
[ "$(kubectl get deploy web -n team-v -o jsonpath='{.spec.replicas}')" = 2 ] || sk_fail "replicas"
want="sha256:$(printf 'extra:\n  a: 1\n  b: 2\n  flag: "true"\n  num: 42\n  secret: from-secret\nmessage: from-configmap\nreplicas: 2\n' | sha256sum | cut -d' ' -f1)"
[ "$(rl_status team-v web '{.status.history[0].configDigest}')" = "$want" ] || sk_fail "configDigest of the composed values"

# the referenced ConfigMap changes: out of sync on the next reconcile
kubectl create configmap base -n team-v --from-literal=values.yaml="message: changed" --dry-run=client -o yaml | kubectl apply -f - >/dev/null 2>&1
rl_request team-v web
r=$(sk_ready team-v web)
e2e_expect_contains "$r" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-v/web.v2" "Ready after the ConfigMap changed"
[ "$(kubectl get cm web-config -n team-v -o jsonpath='{.data.message}')" = changed ] || sk_fail "web-config after the change"

# a required reference that does not exist
sk_apply_hr team-v broken app "  valuesFrom:
  - kind: Secret
    name: nowhere"
r=$(sk_wait_cond team-v broken False 60)
e2e_expect_contains "$r" "False|ValuesError|could not resolve Secret chart values reference 'team-v/nowhere' with key 'values.yaml': not found" "Ready of broken"
helm status broken -n team-v >/dev/null 2>&1 && sk_fail "broken was installed"

# a chart with values.schema.json: values against it fail the install
# unless .spec.install.disableSchemaValidation (then upgrades need
# .spec.upgrade.disableSchemaValidation)
mkdir -p "$SK_DIR/strict"
cp -r "$BH_SRCDIR/tests/e2e/release/app" "$SK_DIR/strict/"
cat > "$SK_DIR/strict/app/values.schema.json" <<'JSON'
{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
 "properties": {"message": {"type": "string", "pattern": "^[a-z]+$"}}}
JSON
sk_publish "$SK_DIR/strict/app" team-v strict
sk_apply_hr team-v strict strict "  values:
    message: Not Valid"
r=$(sk_wait_cond team-v strict False 60)
e2e_expect_contains "$r" "False|InstallFailed|" "Ready of strict with invalid values"
case "$r" in *schema*) ;; *) sk_fail "no schema error in: $r" ;; esac
helm status strict -n team-v >/dev/null 2>&1 && sk_fail "strict was installed against its schema"
sk_apply_hr team-v strict strict "  install:
    disableSchemaValidation: true
  values:
    message: Not Valid"
r=$(sk_wait_ready team-v strict 60)
e2e_expect_contains "$r" "True|InstallSucceeded|Helm install succeeded for release team-v/strict.v1" "Ready of strict with install.disableSchemaValidation"
[ "$(kubectl get cm strict-config -n team-v -o jsonpath='{.data.message}')" = "Not Valid" ] || sk_fail "strict-config"
sk_apply_hr team-v strict strict "  install:
    disableSchemaValidation: true
  upgrade:
    disableSchemaValidation: true
  values:
    message: Still Not Valid"
rl_wait_gen team-v strict 3 60
e2e_expect_contains "$(sk_ready team-v strict)" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-v/strict.v2" "Ready of strict with upgrade.disableSchemaValidation"
[ "$(kubectl get cm strict-config -n team-v -o jsonpath='{.data.message}')" = "Still Not Valid" ] || sk_fail "strict-config after the upgrade"
echo "PASS: valuesFrom ConfigMap/Secret/targetPath/optional, precedence, changes, missing references, disableSchemaValidation"
