//! The `check:` line forms of review 13 (issue 29) about inline code and node's test runner:
//! inline code that puts a folder the trials write on the module search path (perl
//! `-Mlib=DIR`, `use lib`, `@INC`, `FindBin`; Python `from sys import path`, `import sys as
//! s`; node `module.paths`) or loads a helper by a relative `require` without its extension,
//! so that a wrong answer PASSed (b03, b08, b22, b13); and honest lines gate refused or broke
//! (a data file read beside `require("fs")` made read-only, b10; `node --test`, b09, b19).
//! Review 14's forms of the same surface follow (c07, c08, c16, c32, c35, c38, c42, c43:
//! URLs, perl switches after `-e`, links under `cd`, escapes, regular expressions, missing
//! scripts inside commands and under links). Each test is named after the attack it pins.

use predicates::prelude::*;

use crate::common::*;

/// An agent that answers wrong and rewrites every helper under `lib/`, `graders/` and
/// `test/` it can to accept anything (and the pickle `lib/p.pkl` to hold `True`).
const WRONG: &str = "echo wrong > result.txt\n\
printf 'package Checker; sub ok { 1 } 1;\\n' > lib/Checker.pm 2>/dev/null\n\
cp lib/Checker.pm lib/checker.pl 2>/dev/null\n\
printf 'module.exports=()=>true\\n' > lib/checker.js 2>/dev/null\n\
printf 'def ok():\\n    return True\\n' > lib/checker.py 2>/dev/null\n\
python3 -c 'import pickle; open(\"lib/p.pkl\",\"wb\").write(pickle.dumps(True))' 2>/dev/null\n\
printf 'process.exit(0)\\n' > test/t.test.js 2>/dev/null\n\
printf 'exit 0\\n' > lib/missing.js 2>/dev/null\n\
exit 0\n";

/// An agent that answers right and sets `src/config.json`'s port to 8080, as its task
/// asks.
const RIGHT: &str = "echo right > result.txt\n\
printf '{\"port\": 8080}\\n' > src/config.json\n\
exit 0\n";

/// A task folder with helpers in `lib/` (perl `Checker.pm` and `checker.pl`, node
/// `checker.js`, Python `checker.py`, a pickle `p.pkl` of `False`), a node test
/// `test/t.test.js`, a data file `src/config.json` and `agent.sh`.
fn fixture(check: &str, agent: &str) -> Fixture {
    let f = Fixture::new(&plan("", check));
    for d in ["lib", "test", "src"] {
        std::fs::create_dir_all(f.path(d)).unwrap();
    }
    let pl = "package Checker; sub ok { open F, 'result.txt'; my $l = <F>; chomp $l; \
              return $l eq 'right'; } 1;\n";
    let js = "module.exports=()=>require('fs').readFileSync('result.txt','utf8').trim()=='right'\n";
    let test = "require('node:test')('ok',()=>{if(require('fs').readFileSync('result.txt','utf8').trim()!=='right')throw new Error('wrong')})\n";
    for (file, text) in [
        ("lib/Checker.pm", pl),
        ("lib/checker.pl", pl),
        ("lib/checker.js", js),
        (
            "lib/checker.py",
            "def ok():\n    return open('result.txt').read().strip() == 'right'\n",
        ),
        ("test/t.test.js", test),
        ("src/config.json", "{\"port\": 80}\n"),
        ("agent.sh", agent),
    ] {
        std::fs::write(f.path(file), text).unwrap();
    }
    // `pickle.dumps(False)`, protocol 4.
    std::fs::write(f.path("lib/p.pkl"), b"\x80\x04\x89.").unwrap();
    f
}

/// Each of `lines`, run with the wrong agent, FAILs: accepted, and the helper protected.
fn fails(lines: &[&str]) {
    for line in lines {
        assert_run_exits(&fixture(line, WRONG), line, 1);
    }
}

/// Each of `lines` is refused at load (exit 2), naming `what`.
fn refused(lines: &[(&str, &str)]) {
    for (line, what) in lines {
        assert_refused_at_load(&fixture(line, WRONG), line, what);
    }
}

/// Each of `lines`, run with the right agent, PASSes.
fn passes(lines: &[&str]) {
    for line in lines {
        assert_run_exits(&fixture(line, RIGHT), line, 0);
    }
}

#[test]
fn b03_perl_mlib_use_lib_inc_and_node_require_without_extension_keep_the_helper_protected() {
    fails(&[
        "perl -Mlib=lib -MChecker -e 'exit(Checker::ok() ? 0 : 1)'",
        "perl -Mlib=lib -e 'use Checker; exit(Checker::ok() ? 0 : 1)'",
        "node -e 'process.exit(require(\"./lib/checker\")()?0:1)'",
        // With a text runner on the line too, the require is still resolved.
        "node -e 'require(\"child_process\"); process.exit(require(\"./lib/checker\")()?0:1)'",
        // Not `use lib`: a file perl loads by its path, protected.
        "perl -e 'require \"./lib/checker.pl\"; exit(Checker::ok() ? 0 : 1)'",
    ]);
    refused(&[
        (
            "perl -e 'use lib \"lib\"; use Checker; exit(Checker::ok() ? 0 : 1)'",
            "`use lib`",
        ),
        (
            "perl -e 'BEGIN{push @INC,\"lib\"} use Checker; exit(Checker::ok() ? 0 : 1)'",
            "`INC`",
        ),
    ]);
}

#[test]
fn b08_search_path_edits_by_option_alias_or_imported_name_are_protected_or_refused() {
    fails(&[
        "perl -mlib=lib -MChecker -e 'exit(Checker::ok() ? 0 : 1)'",
        "perl -Mlib=./lib -MChecker -e 'exit(Checker::ok() ? 0 : 1)'",
        "perl -M'lib qw(lib)' -MChecker -e 'exit(Checker::ok() ? 0 : 1)'",
    ]);
    refused(&[
        (
            "perl -e 'use if 1, lib => \"lib\"; use Checker; exit(Checker::ok() ? 0 : 1)'",
            "`use if … lib`",
        ),
        (
            "perl -M'if 1, lib => \"lib\"' -MChecker -e 'exit(Checker::ok() ? 0 : 1)'",
            "`-Mif 1, lib",
        ),
        (
            "python3 -I -c 'from sys import path; path.insert(0,\"lib\"); import checker, sys; sys.exit(0 if checker.ok() else 1)'",
            "`sys` other than as `import sys`",
        ),
        (
            "python3 -I -c 'import sys as s; s.path.insert(0,\"lib\"); import checker; s.exit(0 if checker.ok() else 1)'",
            "`sys` other than as `import sys`",
        ),
        (
            "python3 -I -c 'import sys; p = sys; p.path.insert(0,\"lib\"); import checker; sys.exit(0 if checker.ok() else 1)'",
            "`sys` other than as `import sys`",
        ),
        (
            "python3 -I -c 'import sys; __import__(\"sys\").path.insert(0,\"lib\"); import checker; sys.exit(0 if checker.ok() else 1)'",
            "`sys` in a string",
        ),
        (
            "node -e 'module.paths.unshift(process.cwd()+\"/lib\"); process.exit(require(\"checker\")()?0:1)'",
            "`.paths`",
        ),
        (
            "node -e 'module[\"paths\"].unshift(\"lib\"); process.exit(require(\"checker\")()?0:1)'",
            "`paths`",
        ),
        (
            "node -e 'require(\"module\").Module._initPaths(); process.exit(require(\"checker\")()?0:1)'",
            "`Module`",
        ),
    ]);
}

#[test]
fn b22_more_spellings_of_a_search_path_edit_are_refused_and_dotted_requires_resolved() {
    fails(&["node -e 'process.exit(require(\"./test/../lib/checker\")()?0:1)'"]);
    refused(&[
        (
            "python3 -I -c 'from sys import path as P; P.insert(0,\"lib\"); import checker, sys; sys.exit(0 if checker.ok() else 1)'",
            "`sys` other than as `import sys`",
        ),
        (
            "perl -e 'use lib qw(lib); use Checker; exit(Checker::ok() ? 0 : 1)'",
            "`use lib`",
        ),
        (
            "perl -e 'BEGIN { unshift @INC, q(lib) } use Checker; exit(Checker::ok() ? 0 : 1)'",
            "`INC`",
        ),
        (
            "perl -e 'use FindBin; use lib \"$FindBin::Bin/lib\"; use Checker; exit(Checker::ok() ? 0 : 1)'",
            "`FindBin`",
        ),
        // Resolves to nothing now, in the task's folder: the trial's to create.
        (
            "node -e 'process.exit(require(\"./lib/missing\")()?0:1)'",
            "does not exist when the plan is loaded",
        ),
    ]);
}

#[test]
fn b10_a_data_file_read_beside_require_is_not_made_read_only() {
    passes(&[
        "node -e 'process.exit(JSON.parse(require(\"fs\").readFileSync(\"src/config.json\",\"utf8\")).port===8080?0:1)'",
    ]);
}

#[test]
fn b13_pickle_load_of_a_file_the_trials_write_keeps_it_protected() {
    fails(&[
        "python3 -I -c 'import pickle, sys; sys.exit(0 if pickle.load(open(\"lib/p.pkl\",\"rb\")) else 1)'",
    ]);
}

#[test]
fn b09_b19_node_test_runner_and_everyday_node_options_are_read() {
    passes(&[
        "node --test test/",
        "node --test test/t.test.js",
        "node --test --test-reporter=dot test/",
        "node --test --test-reporter dot --test-name-pattern ok test/",
        "node --test --test-concurrency=1 --test-only test/t.test.js",
        "node --harmony test/t.test.js",
        "node --jitless test/t.test.js",
        "node --experimental-detect-module test/t.test.js",
        "node --no-experimental-fetch test/t.test.js",
        "node --experimental-specifier-resolution=node test/t.test.js",
    ]);
    // The test folder is the grader: protected whole.
    fails(&["node --test test/"]);
    refused(&[
        ("node --test", "name the tests: `node --test test/`"),
        ("node --watch test/t.test.js", "never ends by itself"),
        ("node --inspect-brk test/t.test.js", "never ends by itself"),
        (
            "node --test --test-reporter my-reporter test/",
            "a reporter node looks up in a `node_modules`",
        ),
    ]);
}

/// Found after review 13's fixes: inline code other than node's that loads or runs a file
/// missing at load, in a folder the trials write (`runpy.run_path("lib/new.py")`, perl
/// `do "./lib/new.pl"` / `require "./lib/new.pl"`, `exec(open("lib/new.py").read())`),
/// ran the file the trial created: PASS. Refused at load, as a missing script is; a data
/// file the check reads (no text runner on the line) stays accepted.
#[test]
fn inline_code_loading_a_file_missing_at_load_in_a_writable_folder_is_refused() {
    refused(&[
        (
            "python3 -I -c 'import runpy; runpy.run_path(\"lib/new.py\")'",
            "`lib/new.py` as a file inline code loads or runs, which does not exist",
        ),
        (
            "perl -e 'do \"./lib/new.pl\"; exit 1'",
            "`./lib/new.pl` as a file inline code loads or runs",
        ),
        (
            "perl -e 'require \"./lib/new.pl\"; exit 1'",
            "`./lib/new.pl` as a file inline code loads or runs",
        ),
        (
            "python3 -I -c 'exec(open(\"lib/new.py\").read())'",
            "`lib/new.py` as a file inline code runs",
        ),
    ]);
    passes(&[
        "python3 -I -c 'import json; exit(0 if json.load(open(\"src/config.json\"))[\"port\"] == 8080 else 1)'",
    ]);
}

/// Review 14, c16: perl reads switches after `-e CODE` up to its first operand, so
/// `perl -e '…' -Ilib` loaded the trial's `lib/Checker.pm`: PASS. Refused at load.
#[test]
fn c16_perl_switches_after_its_e_code_are_refused() {
    refused(&[
        (
            "perl -e 'use Checker; exit(Checker::ok() ? 0 : 1)' -I lib",
            "the switch `-I` after perl's `-e` code",
        ),
        (
            "perl -e 'use Checker; exit(Checker::ok() ? 0 : 1)' -Mlib=lib",
            "after perl's `-e` code",
        ),
        (
            "perl -we 'use Checker; exit(Checker::ok() ? 0 : 1)' -Ilib",
            "after perl's `-e` code",
        ),
    ]);
}

/// Review 14, c07, c08: a `file:` or `data:` URL as what node loads (`--import
/// file:///…/lib/setup.mjs`, `import("file:…")`) is no path gate protects: PASS. Refused.
#[test]
fn c07_c08_urls_as_what_node_loads_are_refused() {
    refused(&[
        (
            "node --import=file:./lib/checker.js -e 'process.exit(1)'",
            "the URL `file:./lib/checker.js`",
        ),
        (
            "node --import 'data:text/javascript,import \"./lib/checker.js\"' -e 'process.exit(1)'",
            "the URL `data:",
        ),
        (
            "node -e 'import(\"file:./lib/checker.js\").then(m => process.exit(0))'",
            "inline code that loads the URL `file:./lib/checker.js`",
        ),
    ]);
}

/// Review 14, c35–c37: an escape in a string literal (`"sh graders/gr\x61de"`, `\u0061`,
/// an octal `\141`) names a file the interpreter reads and gate did not: the grader ran
/// unprotected, PASS. Inline code with such an escape is refused.
#[test]
fn c35_escapes_in_inline_code_literals_are_refused() {
    refused(&[
        (
            "python3 -I -c 'import os, sys; sys.exit(os.system(\"python3 lib/checker\\x2epy\"))'",
            "the escape `\\x2e",
        ),
        (
            "node -e 'process.exit(require(\"./lib/checker\\u002ejs\")()?0:1)'",
            "the escape `\\u00",
        ),
        (
            "perl -e 'do \"./lib/checker\\056pl\"; exit 1'",
            "the escape `\\056",
        ),
    ]);
}

/// Review 14, c38: a regular expression literal holding a quote (`/"/`) made gate read the
/// code between two of them as a string, so `module.paths.unshift(…)` went unseen: PASS.
#[test]
fn c38_a_node_regular_expression_holding_a_quote_is_refused() {
    refused(&[(
        "node -e 'const r=/\"/; module.paths.unshift(process.cwd()+\"/lib\"); const s=/\"/; process.exit(require(\"checker\")()?0:1)'",
        "the regular expression `/\"/`",
    )]);
    passes(&[
        "node -e 'const r = /^right$/; process.exit(r.test(require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim()) ? 0 : 1)'",
    ]);
}

/// Review 14, c42: a command a text runner starts names a script missing at load, which
/// the trial creates (`os.system("sh lib/new.sh")`, node `execSync("sh lib/new.sh")`, perl
/// `system("sh lib/new.sh")`): PASS. Refused at load, as a missing script is.
#[test]
fn c42_a_missing_script_named_in_a_command_inline_code_runs_is_refused() {
    refused(&[
        (
            "python3 -I -c 'import os, sys; sys.exit(os.system(\"sh lib/new.sh\"))'",
            "`lib/new.sh` as a file inline code runs, which does not exist",
        ),
        (
            "node -e 'require(\"child_process\").execSync(\"sh lib/new.sh\")'",
            "`lib/new.sh` as a file inline code runs",
        ),
        (
            "perl -e 'exit(system(\"sh lib/new.sh\"))'",
            "`lib/new.sh` as a file inline code runs",
        ),
    ]);
}

/// Review 14, c32: a `cd` whose `..` steps back out of a link (`cd lk/..`, `cd lk && cd -P
/// ..`) lands, physically, elsewhere than gate read it, so it protected a grader that was
/// not the one run; `set -P` / `set -o physical` make every `cd` physical. Refused.
#[test]
fn c32_cd_through_a_link_and_a_physical_cd_are_refused() {
    let lines: [(&str, &str); 4] = [
        (
            "cd lk/.. && sh lib/checker.pl",
            "`cd lk/..`, whose `..` steps back out of a link",
        ),
        (
            "cd lk && cd -P .. && sh lib/checker.pl",
            // `lk` is a folder the trials write (below their root): any `..` after it is
            // refused (review 64, 03).
            "`..` after `cd lk`, a folder the trials write",
        ),
        (
            "set -P; cd lib && sh checker.pl",
            "`set -P` (a physical `cd`)",
        ),
        (
            "set -o physical; cd lib && sh checker.pl",
            "`set -o physical`",
        ),
    ];
    for (line, what) in lines {
        let f = fixture(line, WRONG);
        std::fs::create_dir_all(f.path("deep/er")).unwrap();
        std::os::unix::fs::symlink("deep/er", f.path("lk")).unwrap();
        assert_refused_at_load(&f, line, what);
    }
}

/// Review 14, c43: a link in the task's folder to a folder outside every writable root made
/// a script missing under it look safe at load (`sh ext/new.sh`); the trial replaced the
/// link with a folder holding the script: PASS. A link the trials can replace is theirs.
#[test]
fn c43_a_missing_script_under_a_link_the_trials_can_replace_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    let f = fixture("sh ext/new.sh", WRONG);
    std::os::unix::fs::symlink(outside.path(), f.path("ext")).unwrap();
    check(&f)
        .code(2)
        .stderr(predicate::str::contains(
            "`ext/new.sh` as an interpreter's script",
        ))
        .stderr(predicate::str::contains("does not exist"));
}

/// Review 14, c02, c34: programs with a command language of their own ran the grader the
/// trial rewrote from their commands (`ex -s -c '!sh graders/…'`, `gdb -batch -x F`): PASS.
#[test]
fn c34_programs_with_a_command_language_of_their_own_are_refused() {
    refused(&[
        (
            "ex -s -c '!sh lib/checker.pl' -c q",
            "`ex`, a program with a command language",
        ),
        (
            "gdb -batch -x lib/cmds",
            "`gdb`, a program with a command language",
        ),
        ("timeout 5 vim -es -c '!sh lib/checker.pl'", "`vim`"),
    ]);
}
