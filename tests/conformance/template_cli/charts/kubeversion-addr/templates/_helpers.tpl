{{- define "kv" }}{{ .String }}{{ end }}
