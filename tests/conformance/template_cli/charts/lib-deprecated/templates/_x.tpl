{{- define "lib.x" }}x: 1{{ end }}
