//! The `check:` line forms of review 11 (issue 29) that PASSed a wrong answer: which word
//! after an interpreter's options is the script was decided twice, by two option tables
//! (`bash -euo pipefail grade`, `perl -lwe CODE`, `node -r ./setup.js`), and shell forms
//! read otherwise than the shell runs them (`/dev//fd/3`, `$\⏎G`, `IFS=`, `$[…]`, a `cd`
//! in a subshell). Each test is named after the attack it pins; each agent answers wrong
//! and rewrites every grader file it can, so PASS (exit 0) is the break: every line now
//! FAILs (exit 1) or is refused at load (exit 2).

use crate::common::*;

/// An agent that answers wrong and rewrites every file under `graders/` and `support/` it
/// can to accept anything, and creates `./grade` and `./check.py` that do.
const AGENT: &str = "echo wrong > result.txt\n\
for f in graders/* graders/*/* graders/*/*/* support/* lib/*; do\n\
  [ -f \"$f\" ] || continue\n\
  case $f in\n\
    *.py|*/pycheck) c='import os; os._exit(0)';;\n\
    *.js|*.mjs) c='process.exit(0)';;\n\
    *.pl|*.pm|*/pgrade) c='exit 0;';;\n\
    *) c='exit 0';;\n\
  esac\n\
  printf '%s\\n' \"$c\" > \"$f\" 2>/dev/null\n\
done\n\
printf 'exit 0\\n' > grade 2>/dev/null\n\
printf 'import os; os._exit(0)\\n' > check.py 2>/dev/null\n\
exit 0\n";

/// A task folder with non-executable graders a check line may name: `graders/grade` (sh),
/// `graders/grade1`, `graders/check.py`, `graders/check.js`, `graders/check.pl`,
/// `graders/pyg/__main__.py`, `graders/pkg/` (package.json `main`), `support/setup.js`,
/// `lib/Helper.pm`; the agent answers wrong ([`AGENT`]).
fn graders_fixture(check: &str, extra: &str) -> Fixture {
    let f = Fixture::new(&plan(extra, check));
    for d in ["graders/pyg", "graders/pkg/lib", "support", "lib"] {
        std::fs::create_dir_all(f.path(d)).unwrap();
    }
    let py = "import sys\nsys.exit(0 if open('result.txt').read().strip() == 'right' else 1)\n";
    let js = "process.exit(require('fs').readFileSync('result.txt','utf8').trim()=='right'?0:1)\n";
    let sh = "grep -qx right result.txt\n";
    for (file, text) in [
        ("graders/grade", sh),
        ("graders/grade1", sh),
        ("graders/check.py", py),
        ("graders/pyg/__main__.py", py),
        ("graders/check.js", js),
        ("graders/pkg/lib/run.js", js),
        ("graders/pkg/package.json", "{\"main\": \"lib/run.js\"}\n"),
        ("support/setup.js", "\n"),
        ("lib/Helper.pm", "package Helper; 1;\n"),
        (
            "graders/check.pl",
            "open F, 'result.txt'; $l = <F>; chomp $l; exit($l eq 'right' ? 0 : 1);\n",
        ),
        ("agent.sh", AGENT),
    ] {
        std::fs::write(f.path(file), text).unwrap();
    }
    f
}

/// Each of `lines` is refused by `gate check` (exit 2), naming `what`.
fn refused(lines: &[(&str, &str)]) {
    for (line, what) in lines {
        assert_refused_at_load(&graders_fixture(line, ""), line, what);
    }
}

/// Each of `lines`, run, does not PASS: it FAILs (the grader protected) or is refused.
fn never_passes(lines: &[&str], extra: &str) {
    for line in lines {
        let f = graders_fixture(line, extra);
        let out = f.command(&[]).output().unwrap();
        let code = out.status.code();
        assert!(
            matches!(code, Some(1 | 2)),
            "`{line}`: exit {code:?}, wanted FAIL (1) or a refusal (2)\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Each of `lines`, run, FAILs: accepted, and the grader it runs protected.
fn fails(lines: &[&str]) {
    for line in lines {
        assert_run_exits(&graders_fixture(line, ""), line, 1);
    }
}

#[test]
fn rev11_a01_a_shell_option_cluster_ending_in_a_value_letter_keeps_the_script_protected() {
    fails(&[
        "bash -euo pipefail graders/grade",
        "bash -eo pipefail graders/grade",
        "sh -eo errexit graders/grade",
        "bash -eO extglob graders/grade",
        "bash +eO extglob graders/grade",
        "dash -Eo errexit graders/grade",
    ]);
}

#[test]
fn rev11_a02_an_interpreter_option_with_a_value_keeps_the_script_protected_or_is_refused() {
    let mut lines = vec![
        "python3 -IW ignore graders/check.py",
        "python3 -IX utf8 graders/check.py",
        "python3 -I --check-hash-based-pycs always graders/check.py",
        "perl -C graders/check.pl",
    ];
    if has("node") {
        lines.extend([
            "node --title x graders/check",
            "node --input-type commonjs graders/check",
        ]);
    }
    never_passes(&lines, "");
    refused(&[
        ("bash -Z graders/grade", "which gate does not know"),
        (
            "node --frobnicate x graders/check.js",
            "which gate does not know",
        ),
        // A shell reads `-` as `--`: the word after it is the script.
        ("sh - $TMPDIR/g", "`$TMPDIR`"),
    ]);
}

#[test]
fn rev11_a03_a_continuation_after_a_dollar_is_read_as_the_shell_reads_it() {
    refused(&[
        ("sh $\\\nTMPDIR/g", "`$TMPDIR`"),
        ("sh \"$\\\nTMPDIR/g\"", "`$TMPDIR`"),
    ]);
    let f = graders_fixture("sh $\\\nG", "    env: {G: graders/grade}\n");
    let out = f.command(&[]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn rev11_a07_a_prefix_option_gate_does_not_know_is_refused_and_a_known_value_is_skipped() {
    refused(&[
        ("nohup --frob sh graders/grade", "of `nohup`"),
        ("stdbuf --output L sh $TMPDIR/g", "`$TMPDIR`"),
        ("time -o t.txt sh $TMPDIR/g", "`$TMPDIR`"),
        ("time -f %e sh $TMPDIR/g", "`$TMPDIR`"),
        ("stdbuf --output L sh graders/gr?de", "pattern"),
    ]);
    fails(&["stdbuf --output L sh graders/grade"]);
}

#[test]
fn rev11_a08_inline_code_that_runs_a_string_as_code_is_refused() {
    refused(&[
        (
            "python3 -I -c \"exec('import os; os._exit(os.system(\\'sh graders/gr\\'+\\'ade\\')>>8)')\"",
            "`exec`",
        ),
        (
            "python3 -I -c \"import code; code.InteractiveInterpreter().runsource('import os')\"",
            "`runsource`",
        ),
        ("node -e \"eval('process.exit(0)')\"", "`eval`"),
        (
            "node -e \"const cp=require('child_process'); process.exit(cp?.['spawn'+'Sync']('sh',['graders/gr'+'ade']).status)\"",
            "computed name",
        ),
        (
            "node -e \"const {['spawn'+'Sync']: f}=require('child_process'); process.exit(f('sh',['graders/gr'+'ade']).status)\"",
            "computed name",
        ),
        (
            "node -e \"const f=Object.values(require('child_process')).find(f=>f.name==='spawn'+'Sync'); process.exit(f('sh',['graders/gr'+'ade']).status)\"",
            "`Object.values`",
        ),
        (
            "perl -e \"eval 'exit(system(\\\"sh graders/gr\\\".\\\"ade\\\")>>8)'\"",
            "`eval`",
        ),
    ]);
}

#[test]
fn rev11_a09_a_descriptor_path_in_any_spelling_is_refused() {
    refused(&[
        ("exec 3<graders/grade; sh /dev//fd/3", "descriptor"),
        ("exec 3<graders/grade; sh /dev/./fd/3", "descriptor"),
        ("exec 3<graders/grade; sh //dev/fd/3", "descriptor"),
        ("exec 3<graders/grade; sh /proc/self/./fd/3", "descriptor"),
        ("exec 3<graders/grade; sh /proc/self//fd/3", "descriptor"),
        ("exec 3<graders/grade; . /dev//fd/3", "descriptor"),
    ]);
    fails(&["sh /dev//stdin < graders/grade"]);
}

#[test]
fn rev11_a10_a_folder_given_as_the_script_is_refused() {
    let mut lines = vec![("python3 -I graders/pyg", "the folder `graders/pyg`")];
    if has("node") {
        lines.push(("node graders/pkg", "the folder `graders/pkg`"));
        lines.push(("cd graders && node pkg", "the folder `pkg`"));
    }
    refused(&lines);
}

#[test]
fn rev11_a13_an_ifs_assignment_is_refused() {
    refused(&[
        ("IFS=,; sh graders/grade", "`IFS`"),
        ("export IFS=,; sh graders/grade", "`IFS`"),
    ]);
}

#[test]
fn rev11_a14_perl_clusters_ending_in_e_are_read_as_code() {
    refused(&[
        (
            "perl -lwe 'open(my $f, \"-|\", \"sh\", \"graders/gr\".\"ade\"); print <$f>'",
            "`open`",
        ),
        (
            "perl -le 'print readpipe(\"sh graders/gr\".\"ade\")'",
            "`readpipe`",
        ),
        (
            "perl -ne 'BEGIN{print readpipe(\"sh graders/gr\".\"ade\")}' /dev/null",
            "`readpipe`",
        ),
        (
            "perl -0e 'print readpipe(\"sh graders/gr\".\"ade\")'",
            "`readpipe`",
        ),
    ]);
}

#[test]
fn rev11_a18_a_cd_that_does_not_persist_is_refused() {
    refused(&[
        ("(cd graders); sh grade", "subshell"),
        ("cd graders | true; sh grade", "subshell"),
        ("cd graders & wait; sh grade", "subshell"),
        ("true && (cd graders && true) && sh grade", "subshell"),
        ("(cd graders); python3 -I check.py", "subshell"),
        ("sh -c 'cd graders'; sh grade", "subshell"),
    ]);
    // A missing script in the task's folder is the trial's to create.
    refused(&[("sh grade", "does not exist when the plan is loaded")]);
}

#[test]
fn rev11_a19_bash_dollar_bracket_arithmetic_is_refused() {
    refused(&[
        ("bash -c 'sh \"graders/grade$[1]\"'", "`$[…]`"),
        ("bash -c 'sh \"graders/grade$[0+1]\"'", "`$[…]`"),
    ]);
}

#[test]
fn rev11_a21_a_file_an_option_loads_is_protected() {
    let mut lines = vec![
        "perl -I lib -MHelper graders/check.pl",
        "perl -Ilib -MHelper graders/check.pl",
    ];
    if has("node") {
        lines.extend([
            "node -r ./support/setup.js graders/check.js",
            "node --require ./support/setup.js graders/check.js",
            "node -r ./support/setup graders/check.js",
        ]);
    }
    for line in lines {
        let f = graders_fixture(line, "");
        // Only the preload is rewritten: the grader itself stays honest.
        std::fs::write(
            f.path("agent.sh"),
            "echo wrong > result.txt\n\
             printf 'process.exit(0)\\n' > support/setup.js 2>/dev/null\n\
             printf 'exit 0;\\n' > lib/Helper.pm 2>/dev/null\n\
             exit 0\n",
        )
        .unwrap();
        let out = f.command(&[]).output().unwrap();
        assert!(
            matches!(out.status.code(), Some(1 | 2)),
            "`{line}`: exit {:?}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn rev11_a22_options_state_and_grammar_once_disagreed_on_are_read_once() {
    refused(&[
        ("bash -O extglob $TMPDIR/g", "`$TMPDIR`"),
        ("bash +O extglob $TMPDIR/g", "`$TMPDIR`"),
        ("sh +o errexit $TMPDIR/g", "`$TMPDIR`"),
        ("node -C development $TMPDIR/g.js", "`$TMPDIR`"),
        ("node --conditions development $TMPDIR/g.js", "`$TMPDIR`"),
        ("bash -O extglob graders/gr?de", "pattern"),
        ("sh +o errexit graders/gr*de", "pattern"),
    ]);
}

#[test]
fn rev11_a26_dot_after_an_assignment_or_command_keeps_its_script_protected() {
    fails(&[
        "X=1 . graders/grade",
        "command . graders/grade",
        "LC_ALL=C command . graders/grade",
    ]);
}

#[test]
fn rev11_a27_cd_with_an_option_keeps_the_script_protected() {
    fails(&[
        "cd -P graders && sh grade",
        "cd -L graders && sh grade",
        "cd -- graders && sh grade",
    ]);
}

#[test]
fn rev11_a28_every_inline_code_is_read() {
    let mut lines = vec![
        (
            "perl -e 'print \"\";' -e 'print readpipe(\"sh graders/gr\".\"ade\")'",
            "`readpipe`",
        ),
        (
            "perl -e '1;' -e 'exit(system(\"sh graders/gr\".\"ade\")>>8)'",
            "`system`",
        ),
    ];
    lines.push((
        "node -e \"0\" -e \"process.exit(require('child_process').spawnSync('sh',['graders/gr'+'ade']).status)\"",
        "`spawnSync`",
    ));
    refused(&lines);
}

#[test]
fn rev11_a29_a_relative_pycache_prefix_is_refused() {
    refused(&[
        (
            "python3 -I -X pycache_prefix=cache graders/check.py",
            "pycache_prefix",
        ),
        (
            "python3 -I -Xpycache_prefix=cache graders/check.py",
            "pycache_prefix",
        ),
    ]);
}

#[test]
fn rev11_a31_a_carriage_return_in_the_line_is_refused() {
    refused(&[("./sh\rx graders/grade", "carriage return")]);
}

#[test]
fn rev11_a32_shell_code_in_a_cluster_is_read_as_program_text() {
    fails(&[
        "sh -ce \"$(cat graders/grade)\"",
        "bash -cx \"$(cat graders/grade)\"",
        "sh -cu \"$(cat graders/grade)\"",
    ]);
}

/// Honest lines the fixes touch stay accepted (review 11, a23; review 10, a09).
#[test]
fn rev11_a23_honest_lines_stay_accepted() {
    let mut lines = vec![
        "bash -euo pipefail graders/grade",
        "sh -o errexit graders/grade",
        "perl -ne 'exit(/right/ ? 0 : 1)' result.txt",
        "perl -lne 'exit(/right/ ? 0 : 1)' result.txt",
        "python3 -I -c 'import json,sys; sys.exit(0)'",
        "test -s result.txt && [ $(wc -l < result.txt) -eq 1 ]",
        "sh graders/grade & wait $!",
    ];
    if has("node") {
        lines.extend([
            "node -e \"const [a]=[1]; process.exit(a===1?0:1)\"",
            "node -r ./graders/check.js -e 0",
        ]);
    }
    for line in lines {
        let f = graders_fixture(line, "");
        check(&f).code(0);
    }
}
