{{- define "sub.yaml" }}{{ .Values.YAML }}{{ printf "%T" .Values }}{{ end }}
