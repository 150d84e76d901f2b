{{- define "sub.helper" -}}helper-of-2.0.0{{- end -}}
{{- define "sub.new" -}}new-only-helper{{- end -}}
