#!/usr/bin/env bash
# The shell logic of the composite action in action.yml, kept in a file so it can be read,
# linted and tested outside GitHub Actions (tests/cli/action.rs runs it with a fake
# GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_ACTIONS=true).
#
# Usage: gate-action.sh locate | build | run
#
#   locate  decide where the `gate` binary comes from (INPUT_INSTALL: auto | path | build);
#           outputs `build` (true|false), `bin-dir` and `source-hash` (the cache key). Under
#           `auto`, an action used at a release tag (GATE_ACTION_REF = vX.Y.Z) downloads its
#           own release binary and checks its SHA-256 first; any problem falls back to a build.
#   build   `cargo install --locked` the action's own source into GATE_INSTALL_ROOT.
#   run     `gate run` each plan file matched by INPUT_PLAN, `gate report` over the
#           ledgers matched by INPUT_LEDGERS, or `gate ingest` over the JUnit files matched
#           by INPUT_RESULTS (with INPUT_PLAN as its `--plan`, if set); outputs `verdict`, `exit-code`, `ledger`,
#           `junit`, `report`, `decision` (CONTINUE when a staged run's merged stages are
#           undecided: gate exits 5, the step 0); INPUT_STAGE runs one stage (`--stage`),
#           after the earlier stages' ledgers matched by INPUT_AFTER (`--after`).
#           Exits with gate's own exit code (0 for CONTINUE), so the step fails exactly
#           when gate says the gate failed under the plan's (or the overridden) policy.
#
# A task under test runs as the same user as this script (docs/trust.md): before any task
# starts, `run` copies the gate binary and every plan of the step into a private folder
# outside the workspace and runs that copy of gate; a plan changed by a task of an earlier
# plan is restored before it runs, and gate's JSON report must show it read the original
# bytes. The outputs and the step summary come from gate alone (its JSON report and summary
# in the private folder): whatever a task wrote to GITHUB_OUTPUT or GITHUB_STEP_SUMMARY
# during the step is discarded, the outputs are written in heredoc form with random
# delimiters and read back.
#
# Inputs arrive only as environment variables (INPUT_*), never spliced into shell text:
# action.yml has no `${{ }}` expression inside any `run:`. Nothing here evals an input.
set -euo pipefail

# Exit codes of `gate` (src/exit.rs); the action adds none of its own beyond reusing USAGE
# for its own input errors.
readonly EXIT_PASS=0 EXIT_FAIL=1 EXIT_USAGE=2 EXIT_INCONCLUSIVE=3 EXIT_CONTINUE=5

action_path="${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"

# --- GitHub Actions plumbing -------------------------------------------------------------

# Escape a message for a workflow command (`::error::`), as the runner expects.
escape_data() {
  local s="$1"
  s="${s//'%'/'%25'}"
  s="${s//$'\r'/'%0D'}"
  s="${s//$'\n'/'%0A'}"
  printf '%s' "$s"
}

# Report an error of the action itself (not of the agent under test): an annotation when
# under Actions, and always a plain line on stderr for the log.
annotate_error() {
  if [ "${GITHUB_ACTIONS:-}" = "true" ]; then
    printf '::error title=gate action::%s\n' "$(escape_data "$1")"
  fi
  printf 'gate-action: error: %s\n' "$1" >&2
}

# Set a step output, always in the heredoc form with a random delimiter that does not occur
# in the value: a value can then never end an unterminated block or start a line of its own.
# Outside Actions (no GITHUB_OUTPUT) the outputs go to stderr.
set_output() {
  local name="$1" value="$2" delimiter
  if [ -z "${GITHUB_OUTPUT:-}" ]; then
    printf 'gate-action: output %s=%s\n' "$name" "$value" >&2
    return
  fi
  delimiter="gate_output_${RANDOM}${RANDOM}${RANDOM}${RANDOM}"
  while [[ "$value" == *"$delimiter"* ]]; do delimiter="${delimiter}_${RANDOM}"; done
  printf '%s<<%s\n%s\n%s\n' "$name" "$delimiter" "$value" "$delimiter" >>"$GITHUB_OUTPUT"
}

# The value the runner reads for output NAME from GITHUB_OUTPUT: the last definition, by the
# runner's rules (`name=value` lines and `name<<DELIMITER` blocks). Empty if none.
read_output() {
  local want="$1" line name delimiter="" body="" value=""
  while IFS= read -r line || [ -n "$line" ]; do
    if [ -n "$delimiter" ]; then
      if [ "$line" = "$delimiter" ]; then
        [ "$name" != "$want" ] || value="$body"
        delimiter=""
      else
        body+="${body:+$'\n'}$line"
      fi
    elif [[ "$line" == *"<<"* ]] && [[ "${line%%<<*}" != *"="* ]]; then
      name="${line%%<<*}" delimiter="${line#*<<}" body=""
    elif [[ "$line" == *"="* ]]; then
      [ "${line%%=*}" != "$want" ] || value="${line#*=}"
    fi
  done <"$GITHUB_OUTPUT"
  printf '%s' "$value"
}

# Start this step's outputs afresh: GITHUB_OUTPUT holds only what was written during this
# step, and by now that is only what a task may have appended (a forged `verdict=PASS`, an
# open heredoc that would swallow the action's own lines). Refused when it is no longer a
# regular file: truncating through a symlink would truncate whatever it points at.
reset_runner_file() {
  local var="$1" path="${!1:-}"
  [ -n "$path" ] || return 0
  if [ -L "$path" ] || { [ -e "$path" ] && [ ! -f "$path" ]; }; then
    annotate_error "\`$var\` is no longer a regular file (a task may have replaced it); no verdict is published"
    exit 4
  fi
  : >"$path"
}

# Fail the step for an input error: outputs say ERROR so `if: always()` steps can tell.
fail_usage() {
  annotate_error "$1"
  set_output verdict ERROR
  set_output exit-code "$EXIT_USAGE"
  exit "$EXIT_USAGE"
}

# --- inputs ------------------------------------------------------------------------------

# Split INPUT_ARGS into words the way xargs does: blanks and newlines separate words; single
# quotes, double quotes and backslashes protect blanks. Nothing is expanded ($, *, ~ and
# backticks stay literal) because no shell ever sees the text. Result: the array EXTRA_ARGS.
EXTRA_ARGS=()
split_args() {
  local text="$1" words errors word
  EXTRA_ARGS=()
  # Blank input would make xargs run printf once with no arguments: one empty word.
  [[ "$text" =~ [^[:space:]] ]] || return 0
  words="$(mktemp)"
  errors="$(mktemp)"
  if ! printf '%s\n' "$text" | xargs printf '%s\0' >"$words" 2>"$errors"; then
    local message
    # GNU xargs adds a hint about its -0 option after a semicolon: not for our users.
    message="$(head -n 1 "$errors")"
    message="${message%%;*}"
    rm -f "$words" "$errors"
    fail_usage "cannot split \`args\`: ${message#xargs: }"
  fi
  while IFS= read -r -d '' word; do
    EXTRA_ARGS+=("$word")
  done <"$words"
  rm -f "$words" "$errors"
}

# Expand the patterns of a path-or-glob input (one per line) into the array MATCHES.
# A literal path is kept as written even when missing, so gate can name it in its error.
MATCHES=()
expand_patterns() {
  local input="$1" line
  MATCHES=()
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line#"${line%%[![:space:]]*}"}"
    line="${line%"${line##*[![:space:]]}"}"
    [ -n "$line" ] || continue
    if [[ "$line" == *[*?[]* ]]; then
      glob_into_matches "$line"
    else
      MATCHES+=("$line")
    fi
  done <<<"$input"
}

# Drop later repeats of a path from MATCHES, keeping the first one's place: overlapping
# `results:` globs (`run-01.xml` and `run-*.xml`) name one file several times, and each file
# is one run. Only identical paths are dropped here; gate itself refuses two files with the
# same content (a copy, a link), naming both, so a run is never counted twice.
dedupe_matches() {
  local -a kept=()
  local f k seen
  for f in ${MATCHES[@]+"${MATCHES[@]}"}; do
    seen=0
    for k in ${kept[@]+"${kept[@]}"}; do
      [ "$k" = "$f" ] && { seen=1; break; }
    done
    [ "$seen" -eq 1 ] || kept+=("$f")
  done
  MATCHES=(${kept[@]+"${kept[@]}"})
}

# Append the files a glob matches (none: nothing) to MATCHES. `**` spans directories.
glob_into_matches() {
  # An empty IFS expands the glob without splitting paths at blanks.
  local IFS=
  local -a expanded
  shopt -s nullglob
  shopt -s globstar 2>/dev/null || true
  # shellcheck disable=SC2206 # the glob is the point; IFS is empty, so no splitting
  expanded=($1)
  shopt -u nullglob
  shopt -u globstar 2>/dev/null || true
  # Only files: `plans/*` must not hand gate a directory such as `plans/demo/`.
  local f
  for f in ${expanded[@]+"${expanded[@]}"}; do
    [ -f "$f" ] && MATCHES+=("$f")
  done
  return 0
}

# --- locate / build ----------------------------------------------------------------------

sha256_stdin() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi
}

# One hash over the manifest, the lock file and every source file: the cache key of the
# built binary. Cargo.lock alone would let a changed source reuse a stale binary.
source_hash() {
  (
    cd "$action_path"
    find Cargo.toml Cargo.lock src -type f -print | LC_ALL=C sort | while IFS= read -r file; do
      printf '%s  %s\n' "$(sha256_stdin <"$file" | cut -c1-64)" "$file"
    done
  ) | sha256_stdin | cut -c1-64
}

# The release asset name for this machine, e.g. `x86_64-unknown-linux-musl`; fails on a
# platform the release workflow does not build for.
release_target() {
  [ "$(uname -s)" = "Linux" ] || return 1
  case "$(uname -m)" in
    x86_64 | amd64) printf 'x86_64-unknown-linux-musl' ;;
    aarch64 | arm64) printf 'aarch64-unknown-linux-musl' ;;
    *) return 1 ;;
  esac
}

# Download this action's release binary into ROOT/bin when the action is used at a release
# tag: `gate-<tag>-<target>.tar.gz` and its `.sha256` from the tag's GitHub release (or from
# GATE_RELEASE_BASE_URL/<tag>/, a mirror). The checksum must match and the binary must
# report the tag's version; otherwise say why and return 1, and the caller builds instead.
download_release() {
  local root="$1" ref="${GATE_ACTION_REF:-}" want target base asset tmp
  want="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$action_path/Cargo.toml" | head -n1)"
  # Only a release tag has release assets; a branch or a SHA builds from source.
  [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || return 1
  if [ "$ref" != "v$want" ]; then
    printf 'gate-action: tag %s does not match the version %s in Cargo.toml; building from source\n' "$ref" "$want"
    return 1
  fi
  if ! target="$(release_target)"; then
    printf 'gate-action: no release binary for %s %s; building from source\n' "$(uname -s)" "$(uname -m)"
    return 1
  fi
  base="${GATE_RELEASE_BASE_URL:-https://github.com/${GATE_ACTION_REPOSITORY:-}/releases/download}"
  asset="gate-$ref-$target.tar.gz"
  tmp="$(mktemp -d)"
  if ! curl -fsSL --retry 3 -o "$tmp/$asset" "$base/$ref/$asset" \
    || ! curl -fsSL --retry 3 -o "$tmp/$asset.sha256" "$base/$ref/$asset.sha256"; then
    printf 'gate-action: cannot download %s from %s; building from source\n' "$asset" "$base/$ref"
    rm -rf "$tmp"
    return 1
  fi
  local expected actual
  expected="$(awk '{print $1; exit}' "$tmp/$asset.sha256")"
  actual="$(sha256_stdin <"$tmp/$asset" | cut -c1-64)"
  if ! [[ "$expected" =~ ^[0-9a-f]{64}$ ]] || [ "$expected" != "$actual" ]; then
    printf 'gate-action: %s has SHA-256 %s, but its checksum file says %s; building from source\n' "$asset" "$actual" "${expected:-nothing}"
    rm -rf "$tmp"
    return 1
  fi
  mkdir -p "$tmp/x" "$root/bin"
  if ! tar -xzf "$tmp/$asset" -C "$tmp/x" || [ ! -f "$tmp/x/gate" ]; then
    printf 'gate-action: %s holds no gate binary; building from source\n' "$asset"
    rm -rf "$tmp"
    return 1
  fi
  local have
  have="$("$tmp/x/gate" --version 2>/dev/null | awk '{print $2}')"
  if [ "$have" != "$want" ]; then
    printf 'gate-action: the release binary reports version %s, not %s; building from source\n' "${have:-unknown}" "$want"
    rm -rf "$tmp"
    return 1
  fi
  install -m 0755 "$tmp/x/gate" "$root/bin/gate"
  rm -rf "$tmp"
  printf 'gate-action: using the %s release binary for %s (SHA-256 %s verified)\n' "$ref" "$target" "$actual"
}

cmd_locate() {
  local mode="${INPUT_INSTALL:-auto}" root="${GATE_INSTALL_ROOT:-}" found=""
  case "$mode" in
    auto | path | build) ;;
    *) fail_usage "invalid \`install\`: \`$mode\`, expected one of \`auto\`, \`path\`, \`build\`" ;;
  esac
  found="$(command -v gate 2>/dev/null || true)"
  if [ "$mode" = "path" ] && [ -z "$found" ]; then
    fail_usage "\`install: path\` but no \`gate\` on PATH"
  fi
  # `auto` uses a gate on PATH only if it was built from this action's own source: its
  # build identity (`gate build-id`, the SHA-256 over Cargo.toml, Cargo.lock and src/) must
  # be the source hash computed here. A version string alone would take a stale or
  # different build of the same version, or another program called gate.
  if [ "$mode" = "auto" ] && [ -n "$found" ]; then
    local want have
    want="$(source_hash)"
    have="$("$found" build-id 2>/dev/null | head -n1 || true)"
    if [ "$have" != "$want" ]; then
      printf 'gate-action: %s was not built from this action'"'"'s source (build id %s, source %s); building it\n' "$found" "${have:-unknown}" "$want"
      found=""
    fi
  fi
  if [ "$mode" = "path" ] || { [ "$mode" = "auto" ] && [ -n "$found" ]; }; then
    printf 'gate-action: using %s (%s)\n' "$found" "$("$found" --version 2>/dev/null || echo 'version unknown')"
    set_output build false
    set_output bin-dir ""
    return
  fi
  [ -n "$root" ] || fail_usage "GATE_INSTALL_ROOT is not set"
  if [ "$mode" = "auto" ] && download_release "$root"; then
    set_output build false
    set_output bin-dir "$root/bin"
    if [ -n "${GITHUB_PATH:-}" ]; then printf '%s\n' "$root/bin" >>"$GITHUB_PATH"; fi
    return
  fi
  command -v cargo >/dev/null 2>&1 \
    || fail_usage "no \`gate\` on PATH and no \`cargo\` to build it: install a Rust toolchain first"
  [ -f "$action_path/Cargo.lock" ] || fail_usage "no Cargo.lock under \`$action_path\`"
  set_output build true
  set_output bin-dir "$root/bin"
  local hash
  hash="$(source_hash)"
  set_output source-hash "$hash"
  # Later steps of the job (the user's own, too) find the built binary on PATH.
  if [ -n "${GITHUB_PATH:-}" ]; then printf '%s\n' "$root/bin" >>"$GITHUB_PATH"; fi
}

cmd_build() {
  local root="${GATE_INSTALL_ROOT:?GATE_INSTALL_ROOT is not set}"
  # The same job may use the action twice before the cache is saved at the job's end.
  if [ -x "$root/bin/gate" ]; then
    printf 'gate-action: %s already built\n' "$root/bin/gate"
    return
  fi
  cargo install --locked --path "$action_path" --root "$root"
}

# --- run ---------------------------------------------------------------------------------

# Severity of an exit code when several plans run: the step exits with the worst.
# PASS < INCONCLUSIVE < FAIL < harness error < usage error < interrupted.
severity() {
  case "$1" in
    0) echo 0 ;;
    3 | 5) echo 1 ;;
    1) echo 2 ;;
    2) echo 4 ;;
    130 | 143) echo 5 ;;
    *) echo 3 ;;
  esac
}

# The verdict of one `gate` invocation: the JSON report's top-level `verdict` when gate
# reached one (exit 0 may be PASS, or INCONCLUSIVE under `on_inconclusive: pass`); ERROR
# when gate published none (usage or harness error, interrupted).
verdict_of() {
  local code="$1" report="$2" verdict=""
  case "$code" in
    0 | 1 | 3 | 5) ;;
    *) echo ERROR; return ;;
  esac
  if [ -f "$report" ] && command -v jq >/dev/null 2>&1; then
    verdict="$(jq -r 'if (.verdict | type) == "string" then .verdict else "" end' "$report" 2>/dev/null || true)"
  elif [ -f "$report" ] && command -v python3 >/dev/null 2>&1; then
    verdict="$(python3 -c 'import json, sys; v = json.load(open(sys.argv[1])).get("verdict"); print(v if isinstance(v, str) else "")' "$report" 2>/dev/null || true)"
  elif [ -f "$report" ]; then
    printf '::warning title=gate action::neither jq nor python3 to read %s; the verdict output comes from the exit code (INCONCLUSIVE under on-inconclusive: pass reads as PASS)\n' "$report" >&2
  fi
  case "$verdict" in
    PASS | FAIL | INCONCLUSIVE) echo "$verdict" ;;
    *)
      # No jq or no readable report: the exit code alone still tells the three apart,
      # except INCONCLUSIVE under a pass policy, which then reads as PASS.
      case "$code" in
        "$EXIT_PASS") echo PASS ;;
        "$EXIT_FAIL") echo FAIL ;;
        "$EXIT_INCONCLUSIVE" | "$EXIT_CONTINUE") echo INCONCLUSIVE ;;
      esac
      ;;
  esac
}

# What a workflow branches on, from the JSON report's `decision`: PASS, FAIL, INCONCLUSIVE or
# CONTINUE (a staged run must run its next stage; gate exits 5); ERROR when gate published
# no verdict. Without a readable report, the exit code decides.
decision_of() {
  local code="$1" report="$2" verdict="$3" decision=""
  [ "$verdict" != ERROR ] || { echo ERROR; return; }
  if [ -f "$report" ] && command -v jq >/dev/null 2>&1; then
    decision="$(jq -r 'if (.decision | type) == "string" then .decision else "" end' "$report" 2>/dev/null || true)"
  elif [ -f "$report" ] && command -v python3 >/dev/null 2>&1; then
    decision="$(python3 -c 'import json, sys; v = json.load(open(sys.argv[1])).get("decision"); print(v if isinstance(v, str) else "")' "$report" 2>/dev/null || true)"
  fi
  case "$decision" in
    PASS | FAIL | INCONCLUSIVE | CONTINUE) echo "$decision" ;;
    *) if [ "$code" = "$EXIT_CONTINUE" ]; then echo CONTINUE; else echo "$verdict"; fi ;;
  esac
}

verdict_rank() {
  case "$1" in
    PASS) echo 0 ;;
    INCONCLUSIVE) echo 1 ;;
    FAIL) echo 2 ;;
    *) echo 3 ;;
  esac
}

# A folder of the action's own, outside the workspace and given to no task: the copy of the
# gate binary this step runs, the plans as they were when the step started, and gate's JSON
# reports and step summaries, which the action's outputs are read from.
PRIVATE=""
make_private() {
  PRIVATE="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/gate-action.XXXXXXXX")"
  chmod 700 "$PRIVATE"
  # shellcheck disable=SC2064 # the folder's name is fixed now
  trap "rm -rf '$PRIVATE'" EXIT
  # The gate on PATH, copied before any task runs: a task that replaces the binary on PATH
  # (its folder is often writable) changes no later invocation of this step.
  local found
  found="$(command -v gate)"
  install -m 0500 "$found" "$PRIVATE/gate"
  GATE_SHA256="$(sha256_stdin <"$PRIVATE/gate" | cut -c1-64)"
}

# One string field of a JSON report (a jq path, and the same as a Python expression on `j`);
# empty when it cannot be read.
json_field() {
  local file="$1" jq_path="$2" py_expr="$3"
  [ -f "$file" ] || return 0
  if command -v jq >/dev/null 2>&1; then
    jq -r "if ($jq_path | type) == \"string\" then $jq_path else \"\" end" "$file" 2>/dev/null || true
  elif command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
try:
    v = eval(sys.argv[2], {"j": j})
except Exception:
    v = None
print(v if isinstance(v, str) else "")' "$file" "$py_expr" 2>/dev/null || true
  fi
}

# Run one gate command (gate's arguments), printing it first; sets LAST_CODE. It runs the
# private copy of gate, checked against the hash taken at the start, with gate's step summary
# going to a private file (N, the invocation's number) that the action publishes at the end.
LAST_CODE=0
run_gate() {
  local n="$1"
  shift
  printf 'gate-action: running: gate'
  printf ' %q' "$@"
  printf '\n'
  if [ "$(sha256_stdin <"$PRIVATE/gate" | cut -c1-64)" != "$GATE_SHA256" ]; then
    annotate_error "the gate binary this step runs changed after the step started; no verdict is published"
    LAST_CODE=4
    return
  fi
  set +e
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    GITHUB_STEP_SUMMARY="$PRIVATE/summary-$n.md" "$PRIVATE/gate" "$@"
  else
    "$PRIVATE/gate" "$@"
  fi
  LAST_CODE=$?
  set -e
}

# Copy gate's JSON report from the private folder to where the user asked for it (the name
# is removed first, so a symlink a task put there is replaced, not written through).
publish_report() {
  local from="$1" to="$2"
  [ -f "$from" ] || return 0
  rm -f "$to"
  cp "$from" "$to"
}

# Append gate's step summary from the private file to the step's page. Gate appends its
# summary once, after its last trial: a file that does not begin with gate's heading, or holds
# it twice, was written to by someone else too (a task that found the path through the
# environment can forge a "PASS" block and open an HTML comment to hide gate's), and is not
# published; a one-line note says why.
publish_summary() {
  local file="$1" text rest
  [ -f "$file" ] || return 0
  text="$(cat "$file"; printf x)"
  text="${text%x}"
  rest="${text#"## gate: "}"
  if [ "$rest" != "$text" ] && [[ "$rest" != *"## gate: "* ]]; then
    printf '%s' "$text" >>"$GITHUB_STEP_SUMMARY"
  else
    printf '> gate'"'"'s summary is not shown: something other than gate wrote to it during the run (a task may have tried to forge it). The verdict is in the outputs, the JSON report and the ledger.\n\n' >>"$GITHUB_STEP_SUMMARY"
    printf '::warning title=gate action::%s\n' "the step summary was written to by something other than gate during the run; it is not published"
  fi
}

# The given paths that exist, one per line.
existing() {
  local p
  for p in "$@"; do
    if [ -e "$p" ]; then printf '%s\n' "$p"; fi
  done
}

cmd_run() {
  local out_dir="${INPUT_OUT_DIR:-gate-out}" summary="${INPUT_SUMMARY:-true}"
  local on_inconclusive="${INPUT_ON_INCONCLUSIVE:-}" jobs="${INPUT_JOBS:-}" shard="${INPUT_SHARD:-}"
  local stage="${INPUT_STAGE:-}"
  local junit_input="${INPUT_JUNIT:-}"
  local -a common=()

  if [ -n "${GATE_BIN_DIR:-}" ]; then PATH="$GATE_BIN_DIR:$PATH"; fi
  command -v gate >/dev/null 2>&1 || fail_usage "no \`gate\` on PATH"

  case "$summary" in
    true) ;;
    false) common+=(--no-step-summary) ;;
    *) fail_usage "invalid \`summary\`: \`$summary\`, expected \`true\` or \`false\`" ;;
  esac
  case "$on_inconclusive" in
    "") ;;
    fail | pass) common+=(--on-inconclusive "$on_inconclusive") ;;
    *) fail_usage "invalid \`on-inconclusive\`: \`$on_inconclusive\`, expected \`fail\` or \`pass\`" ;;
  esac
  split_args "${INPUT_ARGS:-}"
  make_private

  local -a verdicts=() codes=() ledgers=() junits=() reports=()
  # The merge's decision; a run's or an ingest's is its verdict (a shard's partial view).
  local decision=""
  if [ -n "${INPUT_RESULTS:-}" ]; then
    # Ingest mode: judge JUnit files a test runner wrote (each one run of the suite).
    [ -z "${INPUT_LEDGERS:-}" ] || fail_usage "\`results\` and \`ledgers\` are exclusive: ingest JUnit files, or merge ledgers"
    [ -z "$jobs" ] || fail_usage "\`jobs\` applies to \`gate run\`, not to ingesting \`results\`"
    [ -z "$shard" ] || fail_usage "\`shard\` applies to \`gate run\`, not to ingesting \`results\`"
    [ -z "$stage" ] || fail_usage "\`stage\` applies to \`gate run\`, not to ingesting \`results\`"
    [ -z "${INPUT_AFTER:-}" ] || fail_usage "\`after\` applies to a \`stage\` of \`gate run\`, not to ingesting \`results\`"
    local -a plan_args=()
    if [ -n "${INPUT_PLAN:-}" ]; then
      expand_patterns "$INPUT_PLAN"
      [ "${#MATCHES[@]}" -eq 1 ] \
        || fail_usage "with \`results\`, \`plan\` names one plan file (tasks with \`junit:\`), but it matched ${#MATCHES[@]}"
      plan_args=(--plan "${MATCHES[0]}")
    fi
    expand_patterns "$INPUT_RESULTS"
    dedupe_matches
    [ "${#MATCHES[@]}" -gt 0 ] || fail_usage "\`results\` matched no file: \`$INPUT_RESULTS\`"
    local junit="${junit_input:-$out_dir/junit.xml}" report="$out_dir/report.json"
    mkdir -p "$out_dir" "$(dirname "$junit")"
    run_gate 1 ingest "${MATCHES[@]}" ${plan_args[@]+"${plan_args[@]}"} \
      --ledger "$out_dir/ledger.jsonl" --json "$PRIVATE/report-1.json" --junit "$junit" \
      ${common[@]+"${common[@]}"} ${EXTRA_ARGS[@]+"${EXTRA_ARGS[@]}"}
    codes+=("$LAST_CODE")
    verdicts+=("$(verdict_of "$LAST_CODE" "$PRIVATE/report-1.json")")
    publish_report "$PRIVATE/report-1.json" "$report"
    ledgers+=("$out_dir/ledger.jsonl")
    junits+=("$junit")
    reports+=("$report")
  elif [ -n "${INPUT_LEDGERS:-}" ]; then
    # Merge mode: one verdict over the ledgers of all shards of one run.
    [ -z "${INPUT_PLAN:-}" ] || fail_usage "\`plan\` and \`ledgers\` are exclusive: run plans, or merge ledgers"
    [ -z "$jobs" ] || fail_usage "\`jobs\` applies to \`gate run\`, not to merging \`ledgers\`"
    [ -z "$shard" ] || fail_usage "\`shard\` applies to \`gate run\`, not to merging \`ledgers\`"
    [ -z "$stage" ] || fail_usage "\`stage\` applies to \`gate run\`; merging \`ledgers\` of a staged run decides or says CONTINUE by itself"
    [ -z "${INPUT_AFTER:-}" ] || fail_usage "\`after\` applies to a \`stage\` of \`gate run\`; merging \`ledgers\` takes every stage's ledgers in \`ledgers\`"
    expand_patterns "$INPUT_LEDGERS"
    [ "${#MATCHES[@]}" -gt 0 ] || fail_usage "\`ledgers\` matched no file: \`$INPUT_LEDGERS\`"
    local junit="${junit_input:-$out_dir/junit.xml}" report="$out_dir/report.json"
    mkdir -p "$out_dir" "$(dirname "$junit")"
    run_gate 1 report "${MATCHES[@]}" --json "$PRIVATE/report-1.json" --junit "$junit" \
      ${common[@]+"${common[@]}"} ${EXTRA_ARGS[@]+"${EXTRA_ARGS[@]}"}
    decision="$(decision_of "$LAST_CODE" "$PRIVATE/report-1.json" "$(verdict_of "$LAST_CODE" "$PRIVATE/report-1.json")")"
    codes+=("$LAST_CODE")
    verdicts+=("$(verdict_of "$LAST_CODE" "$PRIVATE/report-1.json")")
    publish_report "$PRIVATE/report-1.json" "$report"
    ledgers+=("${MATCHES[@]}")
    junits+=("$junit")
    reports+=("$report")
  else
    [ -n "${INPUT_PLAN:-}" ] || fail_usage "set \`plan\` (a plan file or glob), \`ledgers\` or \`results\`"
    if [ -n "$jobs" ]; then
      [[ "$jobs" =~ ^[1-9][0-9]*$ ]] || fail_usage "invalid \`jobs\`: \`$jobs\`, expected a positive integer"
      common+=(--jobs "$jobs")
    fi
    if [ -n "$shard" ]; then
      [[ "$shard" =~ ^[0-9]+/[1-9][0-9]*$ ]] || fail_usage "invalid \`shard\`: \`$shard\`, expected K/M"
      common+=(--shard "$shard")
    fi
    if [ -n "$stage" ]; then
      [[ "$stage" =~ ^[1-9][0-9]*$ ]] || fail_usage "invalid \`stage\`: \`$stage\`, expected a stage number 1, 2, …"
      common+=(--stage "$stage")
    fi
    if [ -n "${INPUT_AFTER:-}" ]; then
      [ -n "$stage" ] || fail_usage "\`after\` gives the earlier stages' ledgers of a \`stage\` run; set \`stage\`"
      expand_patterns "$INPUT_AFTER"
      [ "${#MATCHES[@]}" -gt 0 ] || fail_usage "\`after\` matched no file: \`$INPUT_AFTER\`"
      local earlier
      for earlier in "${MATCHES[@]}"; do common+=(--after "$earlier"); done
    fi
    expand_patterns "$INPUT_PLAN"
    local count="${#MATCHES[@]}"
    [ "$count" -gt 0 ] || fail_usage "\`plan\` matched no file: \`$INPUT_PLAN\`"
    if [ "$count" -gt 1 ]; then
      [ -z "$shard" ] || fail_usage "\`shard\` needs one plan, but \`plan\` matched $count files"
      [ -z "$junit_input" ] || fail_usage "\`junit\` names one file, but \`plan\` matched $count files"
    fi
    # Several plans: each gets its own directory, named after the plan file's stem. Every
    # plan is read (copied to the private folder, and hashed) before the first task starts:
    # a task of one plan that rewrites a later plan (`run: "true"`) changes nothing.
    local plan stem seen=$'\n' i=0
    local -a dirs=() hashes=()
    for plan in "${MATCHES[@]}"; do
      local dir="$out_dir"
      if [ "$count" -gt 1 ]; then
        stem="$(basename "$plan")"
        stem="${stem%.*}"
        [[ "$seen" != *$'\n'"$stem"$'\n'* ]] \
          || fail_usage "two plan files share the name \`$stem\`; use distinct names or one step each"
        seen+="$stem"$'\n'
        dir="$out_dir/$stem"
      fi
      dirs+=("$dir")
      i=$((i + 1))
      if [ -f "$plan" ] && cp "$plan" "$PRIVATE/plan-$i"; then
        hashes+=("$(sha256_stdin <"$PRIVATE/plan-$i" | cut -c1-64)")
      else
        # Unreadable now: gate says why when it gets there.
        hashes+=("")
      fi
    done
    local junit report code verdict read_hash
    for i in "${!MATCHES[@]}"; do
      plan="${MATCHES[$i]}"
      local dir="${dirs[$i]}" n=$((i + 1)) want="${hashes[$i]}"
      junit="${junit_input:-$dir/junit.xml}"
      report="$dir/report.json"
      mkdir -p "$dir" "$(dirname "$junit")"
      if [ -n "$want" ] && [ "$(sha256_stdin <"$plan" 2>/dev/null | cut -c1-64)" != "$want" ]; then
        # Nothing of this step runs now (gate reaps its trials' orphans before it exits): the
        # plan is put back as it was at the start, and gate's report must show it read that.
        printf '::warning title=gate action::%s\n' "$(escape_data "\`$plan\` changed after this step started (a task of an earlier plan may have rewritten it); it is restored and run as it was at the start")"
        rm -f "$plan"
        cp "$PRIVATE/plan-$n" "$plan"
      fi
      run_gate "$n" run "$plan" --ledger "$dir/ledger.jsonl" --json "$PRIVATE/report-$n.json" --junit "$junit" \
        ${common[@]+"${common[@]}"} ${EXTRA_ARGS[@]+"${EXTRA_ARGS[@]}"}
      code="$LAST_CODE"
      verdict="$(verdict_of "$code" "$PRIVATE/report-$n.json")"
      read_hash="$(json_field "$PRIVATE/report-$n.json" '.plan.hash' 'j["plan"]["hash"]')"
      if [ -n "$want" ] && [ -n "$read_hash" ] && [ "$read_hash" != "$want" ]; then
        annotate_error "gate read \`$plan\` with SHA-256 $read_hash, not the $want it had when this step started; no verdict is published for it"
        code=4
        verdict=ERROR
      fi
      codes+=("$code")
      verdicts+=("$verdict")
      publish_report "$PRIVATE/report-$n.json" "$report"
      ledgers+=("$dir/ledger.jsonl")
      junits+=("$junit")
      reports+=("$report")
    done
  fi

  local worst_code=0 worst_verdict=PASS
  for i in "${!codes[@]}"; do
    if [ "$(severity "${codes[$i]}")" -gt "$(severity "$worst_code")" ]; then worst_code="${codes[$i]}"; fi
    if [ "$(verdict_rank "${verdicts[$i]}")" -gt "$(verdict_rank "$worst_verdict")" ]; then
      worst_verdict="${verdicts[$i]}"
    fi
  done
  # The step summary and the outputs come from gate alone: whatever a task wrote to the
  # step's own files during this step is discarded first, then gate's summaries (written to
  # the private folder) are published, and the outputs written and read back.
  reset_runner_file GITHUB_STEP_SUMMARY
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    for i in "${!codes[@]}"; do
      publish_summary "$PRIVATE/summary-$((i + 1)).md"
    done
  fi
  reset_runner_file GITHUB_OUTPUT
  set_output verdict "$worst_verdict"
  set_output decision "${decision:-$worst_verdict}"
  set_output exit-code "$worst_code"
  # Only files gate actually wrote: an invalid plan leaves none, and a later upload step
  # must not be sent after files that do not exist.
  set_output ledger "$(existing "${ledgers[@]}")"
  set_output junit "$(existing "${junits[@]}")"
  set_output report "$(existing "${reports[@]}")"
  if [ -n "${GITHUB_OUTPUT:-}" ] \
    && { [ "$(read_output verdict)" != "$worst_verdict" ] || [ "$(read_output exit-code)" != "$worst_code" ]; }; then
    annotate_error "the step's outputs do not read back as written (GITHUB_OUTPUT was written to during the step); no verdict is published"
    exit 4
  fi
  printf 'gate-action: verdict %s, decision %s (exit %s)\n' "$worst_verdict" "${decision:-$worst_verdict}" "$worst_code"
  # CONTINUE is no failure: the workflow branches on the `decision` output and runs the next
  # stage. The `exit-code` output still says 5.
  if [ "$worst_code" = "$EXIT_CONTINUE" ]; then exit "$EXIT_PASS"; fi
  exit "$worst_code"
}

case "${1:-}" in
  locate) cmd_locate ;;
  build) cmd_build ;;
  run) cmd_run ;;
  *)
    printf 'usage: %s locate | build | run\n' "$0" >&2
    exit "$EXIT_USAGE"
    ;;
esac
