{{- define "case.asmap-dig" }}{{ dig "persistence" "size" "8Gi" .Values.AsMap }} {{ dig "nope" "size" "8Gi" .Values.AsMap }}{{ end }}
{{- define "case.asmap-types" }}{{ printf "%T %T %T" .Values .Values.AsMap .Values.a }} {{ kindOf .Values.AsMap }}{{ end }}
{{- define "case.asmap-chain" }}{{ .Values.AsMap.a.b.c }} {{ .Values.AsMap.persistence | toYaml }}{{ end }}
{{- define "case.asmap-args" }}{{ .Values.AsMap "x" }}{{ end }}
{{- define "case.asmap-toyaml" }}{{ toYaml .Values.AsMap }}{{ end }}
{{- define "case.asmap-set" }}{{ $_ := set .Values.AsMap "added" 1 }}{{ .Values.added }}{{ end }}
{{- define "case.yaml" }}{{ .Values.YAML }}{{ end }}
{{- define "case.yaml-args" }}{{ .Values.YAML 1 }}{{ end }}
{{- define "case.yaml-pipe" }}{{ 1 | .Values.YAML }}{{ end }}
{{- define "case.table" }}{{ .Values.Table "a.b" | toYaml }} {{ printf "%T" (.Values.Table "a") }} {{ (.Values.Table "a").b.c }}{{ end }}
{{- define "case.table-chain" }}{{ (.Values.Table "a").YAML }}{{ ((.Values.Table "a").Table "b").PathValue "c" }}{{ end }}
{{- define "case.table-empty" }}{{ .Values.Table "empty" | toYaml }}{{ end }}
{{- define "case.table-missing" }}{{ .Values.Table "nope" }}{{ end }}
{{- define "case.table-scalar" }}{{ .Values.Table "a.b.c" }}{{ end }}
{{- define "case.table-list" }}{{ .Values.Table "a.b.d" }}{{ end }}
{{- define "case.table-no-arg" }}{{ .Values.Table }}{{ end }}
{{- define "case.table-int-arg" }}{{ .Values.Table 5 }}{{ end }}
{{- define "case.table-two-args" }}{{ .Values.Table "a" "b" }}{{ end }}
{{- define "case.table-dots" }}{{ .Values.Table "" }}{{ end }}
{{- define "case.pathvalue" }}{{ .Values.PathValue "a.b.c" }} {{ .Values.PathValue "a.s" }} {{ .Values.PathValue "a.b.d" }} {{ .Values.PathValue "case" }}{{ end }}
{{- define "case.pathvalue-table" }}{{ .Values.PathValue "a.b" }}{{ end }}
{{- define "case.pathvalue-root-table" }}{{ .Values.PathValue "a" }}{{ end }}
{{- define "case.pathvalue-missing" }}{{ .Values.PathValue "a.b.zz" }}{{ end }}
{{- define "case.pathvalue-missing-table" }}{{ .Values.PathValue "zz.b.c" }}{{ end }}
{{- define "case.pathvalue-empty" }}{{ .Values.PathValue "" }}{{ end }}
{{- define "case.pathvalue-nil-arg" }}{{ .Values.PathValue nil }}{{ end }}
{{- define "case.encode" }}{{ .Values.Encode }}{{ end }}
{{- define "case.encode-string" }}{{ .Values.Encode "x" }}{{ end }}
{{- define "case.shadowed" }}{{ .Values.YAML | len }} {{ index .Values "YAML" }}{{ end }}
{{- define "case.nested-no-methods" }}[{{ .Values.a.AsMap }}]{{ end }}
{{- define "case.via-dict" }}{{ include "case.via-dict-inner" (dict "V" .Values) }}{{ end }}
{{- define "case.via-dict-inner" }}{{ .V.Table "a" | toJson }} {{ printf "%T" .V }}{{ end }}
{{- define "case.caps" }}{{ .Capabilities.KubeVersion.Version }} {{ .Capabilities.KubeVersion }} {{ .Capabilities.KubeVersion.GitVersion }} {{ .Capabilities.APIVersions.Has "apps/v1" }} {{ .Capabilities.APIVersions.Has "apps/v1/Deployment" }}{{ end }}
{{- define "case.caps-has-no-arg" }}{{ .Capabilities.APIVersions.Has }}{{ end }}
{{- define "case.files" }}{{ (.Files.Glob "files/*").AsConfig }}{{ .Files.Get "files/a.txt" }}{{ end }}
{{- define "case.chart" }}{{ .Chart.Name }} {{ .Chart.Version }} {{ .Chart.APIVersion }} {{ .Chart.IsRoot }} {{ printf "%T" .Chart }}{{ end }}
{{- define "case.subchart-values" }}{{ include "sub.yaml" .Subcharts.sub }}{{ end }}
