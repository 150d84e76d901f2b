{{- define "fm.check" -}}
{{- if eq .mode "multi" -}}
{{- fail (printf "\nline one\n  line two: %s\n" .what) -}}
{{- else if eq .mode "markers" -}}
{{- fail "a HELM_ERR_END b\nHELM_ERR_START c" -}}
{{- else if eq .mode "tpl" -}}
{{- tpl "{{ fail \"via tpl\\nsecond\" }}" .ctx -}}
{{- end -}}
{{- end -}}
