//! `policy.sandbox.installs`: which new package names a trial may add beside a node check's
//! packages. A package there at the start may load a name it builds at run time, which no
//! reading of its code finds (review 56: `["eq", "color"].join("-")`, `"eq\x2dcolor"`,
//! `String.fromCharCode`, a name in an environment variable or in unquoted data, a dot
//! name). By default every new name gets the run no verdict; the plan names those an agent
//! may install, and each of those is still refused where a package there writes it.

use crate::common::*;
use predicates::prelude::*;

/// The agent's package: it turns the check's exit into 0 when node loads it.
const YES: &str = "process.on(\"exit\", () => { process.exitCode = 0; });";

/// A task whose node grader preloads `eq/config`, which loads `config` (its text) in turn;
/// its agent writes `answer` and runs `trick`.
fn task(installs: Option<&str>, config: &str, answer: &str, trick: &str) -> Fixture {
    let mut text = plan("", "sh graders/check.sh");
    if let Some(installs) = installs {
        text = installing(&text, installs);
    }
    let f = Fixture::new(&text);
    let agent = format!("YES='{YES}'\necho {answer} > result.txt\n{trick}\n");
    write_files(
        &f,
        &[
            ("graders/package.json", "{}\n"),
            (
                "graders/check.js",
                "process.exit(require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n",
            ),
            (
                "graders/check.sh",
                "exec node -\"r\" eq/config graders/check.js\n",
            ),
            (
                "node_modules/eq/package.json",
                "{\"name\":\"eq\",\"exports\":{\"./config\":\"./config.js\"}}\n",
            ),
            ("node_modules/eq/config.js", config),
            ("node_modules/eq/names.txt", "left eq-color right\n"),
            ("agent.sh", &agent),
        ],
    );
    f
}

/// An agent script that does `steps[k]` in trial k + 1 (a counter in `.tn`), with `$PAY`
/// the package code that passes the check and then removes its own folder (so that the
/// end-of-run look finds nothing).
fn by_trial(steps: &[&str]) -> String {
    let mut out = String::from(
        "T=$(( $(cat .tn 2>/dev/null || echo 0) + 1 )); echo $T > .tn
\
         PAY=\"$YES require(\\\"fs\\\").rmSync(__dirname, {recursive: true, force: true});\"\n\
         case $T in\n",
    );
    for (k, step) in steps.iter().enumerate() {
        out.push_str(&format!("{}) {step} ;;\n", k + 1));
    }
    out.push_str("esac");
    out
}

/// The plan of `f` with three trials, of which two may fail.
fn three_trials(f: &Fixture) {
    let text = std::fs::read_to_string(f.plan()).unwrap();
    std::fs::write(f.plan(), text.replace("n: 2, c: 0", "n: 3, c: 2")).unwrap();
}

/// Move `node_modules/eq` of `f` into pnpm's store, linked back as pnpm links it.
fn into_pnpm_store(f: &Fixture) {
    let store = f.path("node_modules/.pnpm/eq@1/node_modules");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::rename(f.path("node_modules/eq"), store.join("eq")).unwrap();
    std::os::unix::fs::symlink(".pnpm/eq@1/node_modules/eq", f.path("node_modules/eq")).unwrap();
}

/// Review 56's names built at run time, each a PASS of a wrong answer while a new name
/// no package wrote was an agent's install: now, with no `installs`, no verdict (exit 4),
/// the path named and the fix said; with `installs: [left-pad]` the same; an install the
/// plan lists gets its verdict both ways.
#[test]
fn a_package_loaded_by_a_name_built_at_run_time_gets_no_verdict_unless_listed() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    let plant = |name: &str| {
        format!("mkdir -p 'node_modules/{name}' && echo \"$YES\" > 'node_modules/{name}/index.js'")
    };
    // (case, eq's config.js, the name the trial installs)
    let cases = [
        (
            "join",
            "try { require([\"eq\", \"color\"].join(\"-\")); } catch (e) {}\n",
            "eq-color",
        ),
        (
            "escape",
            "try { require(\"eq\\x2dcolor\"); } catch (e) {}\n",
            "eq-color",
        ),
        (
            "fromCharCode",
            "try { require(String.fromCharCode(101, 113, 45, 99, 111, 108, 111, 114)); } catch (e) {}\n",
            "eq-color",
        ),
        (
            "unquoted data",
            "const fs = require(\"fs\");\nfor (const n of fs.readFileSync(__dirname + \"/names.txt\", \"utf8\").split(/\\s+/)) { try { require(n); } catch (e) {} }\n",
            "eq-color",
        ),
        (
            "a dot name",
            "try { require(\".\" + \"eq\"); } catch (e) {}\n",
            ".eq",
        ),
    ];
    for (case, config, name) in cases {
        for installs in [None, Some("[left-pad]")] {
            let out = task(installs, config, "wrong", &plant(name))
                .command(&[])
                .output()
                .unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{case} {installs:?}: {said}");
            assert!(
                said.contains(&format!("node_modules/{name}` appeared during the run"))
                    && said.contains("policy.sandbox.installs"),
                "{case} {installs:?}: {said}"
            );
        }
        // Without the plant the grader judges; a listed install is an agent's own.
        for (answer, code) in [("right", 0), ("wrong", 1)] {
            for (installs, trick) in [
                (None, String::new()),
                (Some("[left-pad]"), plant("left-pad")),
            ] {
                let out = task(installs, config, answer, &trick)
                    .command(&[])
                    .output()
                    .unwrap();
                assert_eq!(
                    out.status.code(),
                    Some(code),
                    "{case} {answer} {installs:?}: {}",
                    both(&out)
                );
            }
        }
    }
}

/// A scoped name, a name in a `node_modules` the trial makes below the check's folder, and
/// an install by a listed name's sibling: each unlisted, each no verdict. The listed scoped
/// name is an install like any other, and the run's sandbox line says what the plan let a
/// trial install.
#[test]
fn every_new_name_counts_and_the_sandbox_line_says_which_may_be_installed() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    let config = "module.exports = {};\n";
    for (case, trick) in [
        (
            "scoped",
            "mkdir -p node_modules/@types/node && echo '{}' > node_modules/@types/node/package.json",
        ),
        (
            "below",
            "mkdir -p app/node_modules/left-pad && echo '' > app/node_modules/left-pad/index.js",
        ),
        (
            "a sibling",
            "mkdir -p node_modules/zod-extra && echo '' > node_modules/zod-extra/index.js",
        ),
    ] {
        let f = task(Some("[zod]"), config, "right", trick);
        std::fs::create_dir_all(f.path("app")).unwrap();
        let out = f.command(&[]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{case}: {said}");
        assert!(said.contains("policy.sandbox.installs"), "{case}: {said}");
    }
    let f = task(
        Some("[zod, \"@types/node\"]"),
        config,
        "right",
        "mkdir -p node_modules/@types/node node_modules/zod && echo '{}' > node_modules/@types/node/package.json && echo '' > node_modules/zod/index.js",
    );
    let out = f.command(&[]).output().unwrap();
    let said = both(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains(
            "a trial may install `zod`, `@types/node` beside a node check's packages (`policy.sandbox.installs`)"
        ),
        "{said}"
    );
    // The ledger keeps it: the report of the run says it too.
    gate()
        .current_dir(f.dir.path())
        .args(["report", "out/ledger.jsonl"])
        .assert()
        .stdout(predicate::str::contains(
            "a trial may install `zod`, `@types/node`",
        ));
    // Each name a code span in the Markdown summary, so that no name is markup there
    // (review 62, 15: `__init__` rendered bold, `~~a` struck through).
    let f = task(Some("[__init__, \"~~a\", \"b~~\"]"), config, "right", "");
    f.command(&["--summary", "out/summary.md"]).assert().code(0);
    let md = std::fs::read_to_string(f.path("out/summary.md")).unwrap();
    assert!(
        md.contains("a trial may install `__init__`, `~~a`, `b~~` beside"),
        "{md}"
    );
}

/// What `installs` may be: `any`, `none` or package names; anything else is refused at
/// load (exit 2) with the plan's file:line:col and the forms it takes.
#[test]
fn installs_takes_any_none_or_package_names() {
    for (value, says) in [
        ("\"*\"", "unknown `policy.sandbox.installs` `*`"),
        ("[\"*\"]", "write `any` to allow every name"),
        ("[\"zod/extra\"]", "a name with a `/` is a scope and a word"),
        ("[\"@types\"]", "a scope alone is no package"),
        ("[\"a/b/c\"]", "at most one `/`"),
        ("[\"../x\"]", "is not a package name"),
        ("[\"a b\"]", "letters, digits and `-._~`"),
        ("[.bin]", "folders of packages, not one"),
        (
            "yes please",
            "unknown `policy.sandbox.installs` `yes please`",
        ),
        ("true", "`any`, `none`, or a list of package names"),
    ] {
        let f = Fixture::new(&installing(&plan("", "true"), value));
        check(&f)
            .code(2)
            .stderr(predicate::str::contains(says))
            .stderr(predicate::str::contains("plan.yaml:3:"));
    }
    for value in [
        "any",
        "none",
        "[]",
        "[zod, \"@types/node\", left-pad, lodash.get]",
    ] {
        let f = Fixture::new(&installing(&plan("", "true"), value));
        check(&f).code(0);
    }
}

/// Review 58 (an attack on the rule above), each a PASS of a wrong answer on 2372623: the
/// package managers' names were exempt whatever they were, so a folder
/// `.package-lock.json` the trial made was loaded by that name (07); a file in `.bin` that no
/// install put there, loaded as `.bin/eq-color` (13); a dot file at the top of a
/// `node_modules` there at the start was never compared, so a trial rewrote one a package
/// loads by its path (12). Each now gets no verdict (exit 4). And `tsc -b`'s
/// `node_modules/.tmp` (vite's template) is a tool's cache, not a package (36: an honest
/// agent got no verdict).
#[test]
fn review58_package_manager_names_bin_files_and_dot_files_are_packages_too() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    // (case, eq's config.js, the trial's trick, a file there at the start)
    let cases = [
        (
            "07 a folder by a lock file's name",
            "try { require(\".\" + [\"package-lock\", \"json\"].join(\".\")); } catch (e) {}\n",
            "mkdir -p node_modules/.package-lock.json && echo \"$YES\" > node_modules/.package-lock.json/index.js",
            None,
        ),
        (
            "13 a file in .bin",
            "try { require(\".bin/\" + [\"eq\", \"color\"].join(\"-\")); } catch (e) {}\n",
            "mkdir -p node_modules/.bin && echo \"$YES\" > node_modules/.bin/eq-color",
            None,
        ),
        (
            "12 a dot file rewritten",
            "require(\"../.eqhooks.js\");\n",
            "echo \"$YES\" > node_modules/.eqhooks.js",
            Some(("node_modules/.eqhooks.js", "module.exports = 1;\n")),
        ),
    ];
    for (case, config, trick, start) in cases {
        for installs in [None, Some("[left-pad]"), Some("any")] {
            if !case.starts_with("12") && installs == Some("any") {
                // A new name no package writes literally: `any` lets it, by design.
                continue;
            }
            let f = task(installs, config, "wrong", trick);
            if let Some((path, text)) = start {
                write_files(&f, &[(path, text)]);
            }
            let out = f.command(&[]).output().unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{case} {installs:?}: {said}");
        }
    }
    for (answer, code) in [("right", 0), ("wrong", 1)] {
        let out = task(
            None,
            "module.exports = {};\n",
            answer,
            "mkdir -p node_modules/.tmp && echo '{}' > node_modules/.tmp/tsconfig.app.tsbuildinfo",
        )
        .command(&[])
        .output()
        .unwrap();
        assert_eq!(out.status.code(), Some(code), "36 {answer}: {}", both(&out));
    }
}

/// Review 59 (an attack on the rule after review 58), each a PASS of a wrong answer on
/// 0cba93a: a `.bin` file whose text named the listed package (01: accepted as pnpm's shim,
/// loaded as code by `.bin/x`); pnpm's `.modules.yaml` and yarn's `.yarn-integrity` written
/// as JavaScript (08, 25), or rewritten (09): node loads a file of no known extension as
/// code; `.pnpm` or `.cache` made a file (11, 24); a `.bin` in pnpm's hoisted
/// `.pnpm/node_modules`, which no `.bin` look covered (38). Each now gets no verdict.
#[test]
fn review59_bin_files_pnpm_and_yarn_state_files_and_caches_as_files_are_packages_too() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    let built = |name: &str| {
        let (a, b) = name.split_at(name.len() / 2);
        format!("try {{ require([\"{a}\", \"{b}\"].join(\"\")); }} catch (e) {{}}\n")
    };
    // (case, installs, the name eq builds, the trial's trick, a file there at the start)
    let cases = [
        (
            "01 a .bin file naming the listed package",
            Some("[zod]"),
            ".bin/x",
            "mkdir -p node_modules/zod node_modules/.bin && echo '' > node_modules/zod/index.js && { echo '// node_modules/zod/'; echo \"$YES\"; } > node_modules/.bin/x",
            None,
        ),
        (
            "08 .modules.yaml",
            None,
            ".modules.yaml",
            "echo \"$YES\" > node_modules/.modules.yaml",
            None,
        ),
        (
            "09 .modules.yaml rewritten",
            Some("[zod]"),
            ".modules.yaml",
            "echo \"$YES\" > node_modules/.modules.yaml",
            Some("layoutVersion: 5\n"),
        ),
        (
            "25 .yarn-integrity",
            Some("[zod]"),
            ".yarn-integrity",
            "echo \"$YES\" > node_modules/.yarn-integrity",
            None,
        ),
        (
            "11 .pnpm a file",
            None,
            ".pnpm",
            "echo \"$YES\" > node_modules/.pnpm",
            None,
        ),
        (
            "24 .cache a file",
            None,
            ".cache",
            "echo \"$YES\" > node_modules/.cache",
            None,
        ),
    ];
    for (case, installs, name, trick, start) in cases {
        let f = task(installs, &built(name), "wrong", trick);
        if let Some(text) = start {
            write_files(&f, &[("node_modules/.modules.yaml", text)]);
        }
        let out = f.command(&[]).output().unwrap();
        assert_eq!(out.status.code(), Some(4), "{case}: {}", both(&out));
    }
    // 38: eq in pnpm's store; the trial's `.bin` file in the hoisted `.pnpm/node_modules`.
    let f = task(
        None,
        &built(".bin"),
        "wrong",
        "mkdir -p node_modules/.pnpm/node_modules && echo \"$YES\" > node_modules/.pnpm/node_modules/.bin",
    );
    into_pnpm_store(&f);
    let out = f.command(&[]).output().unwrap();
    assert_eq!(out.status.code(), Some(4), "38: {}", both(&out));
    // The control: the same store, no trick, judged.
    let f = task(None, &built(".bin"), "wrong", "");
    into_pnpm_store(&f);
    let out = f.command(&[]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "38 control: {}", both(&out));
}

/// Review 60, 01-04, each a PASS of a wrong answer on 1a776e0: a scope folder a trial makes
/// (`node_modules/@s`, empty, so no new package) was watched by no notice, so the package a
/// later trial put in it was not looked for before the check that loaded it, and the
/// package removed itself before the end-of-run look; likewise in a package's own
/// `node_modules` (04), and with the scope a link to a folder elsewhere (03). Now a new scope
/// is watched from the look that finds it, and a new scope that is a link is a change.
#[test]
fn review60_a_scope_made_by_one_trial_is_watched_for_the_next() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    let config =
        "require(\"dep\"); try { require([\"@s\", \"eq-color\"].join(\"/\")); } catch (e) {}\n";
    // (case, what trial 1 does, what trial 2 does)
    let cases = [
        (
            "01 a scope",
            "mkdir -p node_modules/@s",
            "mkdir -p node_modules/@s/eq-color && echo \"$PAY\" > node_modules/@s/eq-color/index.js",
        ),
        (
            "03 a scope linked elsewhere",
            "mkdir -p stash && ln -s ../stash node_modules/@s",
            "mkdir -p stash/eq-color && echo \"$PAY\" > stash/eq-color/index.js",
        ),
        (
            "04 a scope in a package's node_modules",
            "mkdir -p node_modules/eq/node_modules/@s",
            "mkdir -p node_modules/eq/node_modules/@s/eq-color && echo \"$PAY\" > node_modules/eq/node_modules/@s/eq-color/index.js",
        ),
    ];
    for (case, first, second) in cases {
        let f = task(None, config, "wrong", &by_trial(&[first, second]));
        write_files(
            &f,
            &[
                (
                    "node_modules/eq/node_modules/dep/package.json",
                    "{\"name\":\"dep\"}\n",
                ),
                (
                    "node_modules/eq/node_modules/dep/index.js",
                    "module.exports = 1;\n",
                ),
            ],
        );
        three_trials(&f);
        let out = f.command(&[]).output().unwrap();
        assert_eq!(out.status.code(), Some(4), "{case}: {}", both(&out));
    }
}

/// Review 61, 03 and 04, each a PASS of a wrong answer on 0a9b987: a watched folder removed
/// and made again gets its inode number back (ext4), which a stamp or a key of device and
/// inode cannot tell from the old folder, and the old watch died with it: an empty scope
/// there at the start (04), or a `node_modules` one trial made where there was none (03),
/// remade by a trial, then filled by the next one, whose package removed itself after the
/// check loaded it. Now a watched folder removed or moved away makes every later look
/// compare every path.
#[test]
fn review61_a_watched_folder_remade_on_its_own_inode_number_is_still_looked_at() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    // 04: an empty scope there at the start.
    let f = task(
        None,
        "try { require([\"@s\", \"eq-color\"].join(\"/\")); } catch (e) {}\n",
        "wrong",
        &by_trial(&[
            "rmdir node_modules/@s; mkdir node_modules/@s",
            "mkdir -p node_modules/@s/eq-color && echo \"$PAY\" > node_modules/@s/eq-color/index.js",
            "true",
        ]),
    );
    std::fs::create_dir_all(f.path("node_modules/@s")).unwrap();
    three_trials(&f);
    let out = f.command(&[]).output().unwrap();
    assert_eq!(out.status.code(), Some(4), "04: {}", both(&out));
    // 03: the check runs node from `app/`, which has no `node_modules` at the start.
    let f = task(
        None,
        "module.exports = 1;\n",
        "wrong",
        &by_trial(&[
            "mkdir app/node_modules",
            "rmdir app/node_modules; mkdir app/node_modules",
            "mkdir -p app/node_modules/eq && cp node_modules/eq/package.json app/node_modules/eq/ && echo \"$PAY\" > app/node_modules/eq/config.js",
        ]),
    );
    write_files(
        &f,
        &[
            (
                "graders/check.sh",
                "cd app && exec node -\"r\" eq/config ../graders/check.js\n",
            ),
            (
                "graders/check.js",
                "process.exit(require(\"fs\").readFileSync(\"../result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n",
            ),
            ("app/.keep", ""),
        ],
    );
    three_trials(&f);
    let out = f.command(&[]).output().unwrap();
    assert_eq!(out.status.code(), Some(4), "03: {}", both(&out));
}
