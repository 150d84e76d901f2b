{{- define "lib.y" }}y: 1{{ end }}
