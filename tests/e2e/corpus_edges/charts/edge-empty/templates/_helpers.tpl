{{- define "edge-empty.name" -}}{{ .Chart.Name }}{{- end -}}
