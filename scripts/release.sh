#!/usr/bin/env bash
# Release packaging, kept out of .github/workflows/release.yml so it can be read, linted and
# tested offline (tests/cli/action.rs packages a binary with it and has the action's
# `locate` step download and verify the result).
#
# Usage:
#   release.sh check-tag TAG              the tag must be `v` + the version in Cargo.toml
#   release.sh package BINARY TAG TARGET OUT_DIR
#                                         write OUT_DIR/gate-TAG-TARGET.tar.gz (the binary,
#                                         named `gate`, at the archive's root) and its
#                                         `.sha256` (`sha256sum` format)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

die() {
  printf 'release: %s\n' "$*" >&2
  exit 2
}

sha256_stdin() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi
}

cargo_version() {
  sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -n1
}

cmd_check_tag() {
  local tag="${1:-}" version
  version="$(cargo_version)"
  [ "$tag" = "v$version" ] || die "tag \`$tag\` does not match \`v$version\` (Cargo.toml); bump the version or fix the tag"
  printf 'release: tag %s matches Cargo.toml\n' "$tag"
}

cmd_package() {
  local binary="${1:-}" tag="${2:-}" target="${3:-}" out="${4:-}"
  if [ -z "$binary" ] || [ -z "$tag" ] || [ -z "$target" ] || [ -z "$out" ]; then
    die "usage: release.sh package BINARY TAG TARGET OUT_DIR"
  fi
  [ -x "$binary" ] || die "\`$binary\` is not an executable file"
  local asset="gate-$tag-$target.tar.gz" stage
  mkdir -p "$out"
  stage="$(mktemp -d)"
  install -m 0755 "$binary" "$stage/gate"
  # Reproducible archive: fixed owner, mode and mtime, one file.
  tar --owner=0 --group=0 --numeric-owner --mtime='1970-01-01' -czf "$out/$asset" -C "$stage" gate
  rm -rf "$stage"
  (cd "$out" && printf '%s  %s\n' "$(sha256_stdin <"$asset" | cut -c1-64)" "$asset" >"$asset.sha256")
  printf 'release: %s\n' "$out/$asset"
  cat "$out/$asset.sha256"
}

case "${1:-}" in
  check-tag) shift; cmd_check_tag "$@" ;;
  package) shift; cmd_package "$@" ;;
  *) die "usage: release.sh check-tag TAG | package BINARY TAG TARGET OUT_DIR" ;;
esac
