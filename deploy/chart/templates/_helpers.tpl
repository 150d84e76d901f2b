{{/* Labels of every object: Helm's recommended set */}}
{{- define "bulkhead.labels" -}}
app.kubernetes.io/name: {{ .Release.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* The pods' selector */}}
{{- define "bulkhead.selector" -}}
app.kubernetes.io/name: {{ .Release.Name }}
{{- end }}
