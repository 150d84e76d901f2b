{{- /* rendered first (deepest path): a subchart's .Values is this very map (camunda-platform's z_compatibility_helpers.tpl) */ -}}
{{- if not (hasKey .Values.sub "commonLabels") -}}{{- $_ := set .Values.sub "commonLabels" (dict) -}}{{- end -}}
{{- $_ := set .Values.sub.commonLabels "x" "" -}}
{{- $_ := set .Values.sub "new" "n" -}}
{{- $_ := set .Values.sub.leaf "fromParent" 1 -}}
