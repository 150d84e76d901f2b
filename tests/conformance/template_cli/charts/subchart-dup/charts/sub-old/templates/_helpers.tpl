{{- define "sub.helper" -}}helper-of-1.0.0{{- end -}}
{{- define "sub.old" -}}old-only-helper{{- end -}}
