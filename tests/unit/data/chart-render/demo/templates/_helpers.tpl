{{- define "demo.name" -}}
{{ .Chart.Name }}-{{ .Release.Name }}
{{- end -}}
