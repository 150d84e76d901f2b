{{- define "loop" }}{{ include "loop" . }}{{ end }}
{{- define "tpl-loop" }}{{ tpl "{{ include \"tpl-loop\" . }}" . }}{{ end }}
{{- define "a" }}{{ include "b" . | indent 2 }}{{ end }}
{{- define "b" }}{{ include "a" . }}{{ end }}
{{- define "down" }}{{ if . }}{{ include "down" (sub . 1) }}{{ else }}{{ fail "bottom" }}{{ end }}{{ end }}
