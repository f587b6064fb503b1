//! Round 4, session 18: the open breaks of issue 29's node-grader class closed by refusing
//! what gate cannot watch whole (review 50's rev50e 04, 15), and by the configuration and
//! package walls reaching what a grader's text names (a configuration given by its path, a
//! folder in another writable root) and what a package there at the start asks for by name
//! (review 46, a08).

use crate::common::*;
use std::os::unix::fs::PermissionsExt as _;

/// A task folder of 200,001 entries outside `node_modules` and `.git` (a data set) under a
/// check that runs node: the configuration walk stops at its bound, so a `.mocharc.yml` a
/// trial plants past it would not be seen (rev50e 04, 15: `gate run` warned and went on, and
/// a wrong answer PASSed). Now no trial is run, exit 4, with the fix in one line. The same
/// folder under a shell grader (no node check) still gets its verdict, with a warning.
#[test]
fn rev50e_04_15_a_node_check_over_a_folder_past_the_walk_bound_runs_no_trial() {
    let f = Fixture::new(&plan("", "node graders/check.js"));
    write_files(
        &f,
        &[
            ("agent.sh", "echo right > result.txt\n"),
            (
                "graders/check.js",
                "process.exit(require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n",
            ),
            ("graders/package.json", "{}\n"),
            ("graders/grade", "grep -qx right result.txt\n"),
        ],
    );
    let data = f.path("data");
    std::fs::create_dir_all(&data).unwrap();
    for i in 0..200_001 {
        std::fs::File::create(data.join(i.to_string())).unwrap();
    }
    let out = f.command(&[]).output().unwrap();
    let said = both(&out);
    assert_eq!(out.status.code(), Some(4), "{said}");
    assert!(
        said.contains("hold more than 200000 entries outside `node_modules` and `.git`")
            && said.contains("no trial was run"),
        "{said}"
    );
    assert!(!f.ledger_path().exists(), "a ledger was started: {said}");
    // A grader folder with no JavaScript: gate reads it as a shell check.
    std::fs::remove_file(f.path("graders/check.js")).unwrap();
    std::fs::remove_file(f.path("graders/package.json")).unwrap();
    std::fs::write(f.plan(), plan("", "sh graders/grade")).unwrap();
    let out = f.command(&[]).output().unwrap();
    let said = both(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("warning: the folders below"), "{said}");
}

/// Makes a node check pass whatever the answer, once loaded.
const YES: &str = "process.on(\"exit\", () => { process.exitCode = 0; });";

/// A grader that reads `.mocharc.js` from the folder it runs in, as mocha does, then judges
/// `$ROOT/result.txt`.
const TOOL: &str = "const fs = require(\"fs\"), path = require(\"path\");\nif (fs.existsSync(\".mocharc.js\")) require(path.resolve(\".mocharc.js\"));\nprocess.exit(fs.readFileSync(path.join(process.env.ROOT, \"result.txt\"), \"utf8\").trim() === \"right\" ? 0 : 1);\n";

/// Review 53, 07 (the form with no link): the grader changes to a folder of another
/// writable root (`cd ../shared/app`, `writable: [shared]`) and runs its tool there; the
/// trial writes `shared/app/.mocharc.js`. The walls watched the check's own root only: a
/// wrong answer PASSed. Now the folder a grader's text enters is watched as the check's
/// own: no verdict, exit 4, naming the file.
#[test]
fn rev53_07_a_grader_that_changes_to_another_writable_root_is_watched_there() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    let setup = |trick: &str| {
        let f = Fixture::new(
            "version: 1\nsampling: {single: {n: 2, c: 0}}\npolicy:\n  sandbox: {mode: best_effort, writable: [shared]}\ntasks:\n  - id: agent\n    cwd: task\n    run: sh agent.sh\n    check: sh graders/check.sh\n",
        );
        let agent = format!("echo wrong > result.txt\n{trick}\n");
        write_files(
            &f,
            &[
                ("shared/app/index.js", "module.exports = 1;\n"),
                ("task/graders/tool.js", TOOL),
                ("task/graders/package.json", "{}\n"),
                (
                    "task/graders/check.sh",
                    "T=$PWD\ncd ../shared/app && ROOT=$T exec node \"$T/graders/tool.js\"\n",
                ),
                ("task/agent.sh", &agent),
            ],
        );
        f
    };
    let trick = format!(
        "echo '{YES}' > ../shared/app/evil.js\necho 'require(\"./evil.js\")' > ../shared/app/.mocharc.js"
    );
    let out = setup(&trick).command(&[]).output().unwrap();
    let said = both(&out);
    assert_eq!(out.status.code(), Some(4), "{said}");
    assert!(said.contains("shared/app/.mocharc.js"), "{said}");
    let out = setup("").command(&[]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "(control) {}", both(&out));
}

/// Review 50's open `--config x.js`: a grader's text hands its tool a configuration by a
/// name of the user's choosing (`--config ci.config.js`, `--config=conf/ci.js` not there at
/// the start), in the task's folder; the trial rewrites or creates it. The configuration
/// wall compared the names it knows only: a wrong answer PASSed. Now the file a check names
/// by such an option is compared too: no verdict, exit 4, naming it. An honest run still
/// gets its verdict either way.
#[test]
fn rev50_a_configuration_a_grader_names_by_an_option_is_compared() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    // Loads the file after `--config` (either spelling), as mocha or jest do.
    let tool = "const fs = require(\"fs\"), path = require(\"path\");\nconst a = process.argv.slice(2).join(\"=\").split(\"=\");\nconst c = a[a.indexOf(\"--config\") + 1];\nif (fs.existsSync(c)) require(path.resolve(c));\nprocess.exit(fs.readFileSync(\"result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n";
    for (line, file, there) in [
        (
            "exec node graders/tool.js --config ci.config.js\n",
            "ci.config.js",
            true,
        ),
        (
            "exec node graders/tool.js --config=conf/ci.js\n",
            "conf/ci.js",
            false,
        ),
    ] {
        let setup = |answer: &str, trick: &str| {
            let f = Fixture::new(&plan("", "sh graders/check.sh"));
            let agent = format!("echo {answer} > result.txt\n{trick}\n");
            write_files(
                &f,
                &[
                    ("graders/tool.js", tool),
                    ("graders/package.json", "{}\n"),
                    ("graders/check.sh", line),
                    ("conf/README", "settings\n"),
                    ("agent.sh", &agent),
                ],
            );
            if there {
                write_files(&f, &[(file, "module.exports = {};\n")]);
            }
            f
        };
        let trick = format!("echo '{YES}' > {file}");
        let out = setup("wrong", &trick).command(&[]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{line}: {said}");
        assert!(
            said.contains(&format!("{file}` changed during the run"))
                && said.contains("by an option"),
            "{line}: {said}"
        );
        for (answer, code) in [("right", 0), ("wrong", 1)] {
            let out = setup(answer, "echo more >> src.js")
                .command(&[])
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(code),
                "{line} {answer}: {}",
                both(&out)
            );
        }
    }
}

/// Review 46, a08: a package there at the start asks for another by name, optionally (`try
/// { require("eq-color") } catch {}`, as `debug` does with `supports-color`), and the trial
/// installs that one: its code runs inside the check. The packages wall took a new package
/// by a new name for an agent's install: a wrong answer PASSed. Now a name a package there
/// at the start asks for (in its code, or in its `package.json`'s dependency fields) is a
/// change: no verdict, exit 4, naming the package that asks. Also where the package that
/// asks sits in a folder below the check's (`cd app && node …`). An install of a package nothing there asks for still gets its verdict.
#[test]
fn rev46_a08_a_package_that_a_package_there_at_the_start_asks_for_is_a_change() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    let judge = "const p = require(\"path\").join(__dirname, \"..\", \"result.txt\");\nprocess.exit(require(\"fs\").readFileSync(p, \"utf8\").trim() === \"right\" ? 0 : 1);\n";
    let eq = "{\"name\":\"eq\",\"exports\":{\".\":\"./main.js\",\"./config\":\"./config.js\"}}\n";
    let declared = "{\"name\":\"eq\",\"exports\":{\".\":\"./main.js\",\"./config\":\"./config.js\"},\"peerDependenciesMeta\":{\"eq-color\":{\"optional\":true}}}\n";
    let literal = "try { require(\"eq-color\"); } catch (e) {}\n";
    let built = "try { require([\"eq\", \"color\"].join(\"-\")); } catch (e) {}\n";
    let preload = "exec node -\"r\" eq/config graders/check.js\n";
    // The plan lets a trial install both names: the one a package asks for is still refused.
    const INSTALLS: &str = "[left-pad, eq-color]";
    let below = "cd app && exec node -\"r\" eq/config ../graders/check.js\n";
    // (case, where eq lives, its package.json, its config.js, the grader script)
    for (case, at, manifest, config, script) in [
        ("literal require", "node_modules/eq", eq, literal, preload),
        (
            "declared optional peer",
            "node_modules/eq",
            declared,
            built,
            preload,
        ),
        // The package that asks sits in a folder below the check's.
        ("a package below", "app/node_modules/eq", eq, literal, below),
    ] {
        let setup = |answer: &str, install: &str| {
            let f = Fixture::new(&installing(&plan("", "sh graders/check.sh"), INSTALLS));
            let shelf = at.strip_suffix("/eq").unwrap();
            let agent = format!(
                "echo {answer} > result.txt\nmkdir -p {shelf}/{install}\necho '{YES}' > {shelf}/{install}/index.js\n"
            );
            write_files(
                &f,
                &[
                    ("graders/package.json", "{}\n"),
                    ("graders/check.js", judge),
                    ("graders/check.sh", script),
                    (&format!("{at}/package.json"), manifest),
                    (&format!("{at}/config.js"), config),
                    (
                        &format!("{at}/main.js"),
                        "module.exports = (a, b) => a === b;\n",
                    ),
                    ("agent.sh", &agent),
                ],
            );
            f
        };
        let out = setup("wrong", "eq-color").command(&[]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{case}: {said}");
        assert!(
            said.contains("node_modules/eq-color` appeared during the run")
                && said.contains("writes that name as a string"),
            "{case}: {said}"
        );
        for (answer, code) in [("right", 0), ("wrong", 1)] {
            let out = setup(answer, "left-pad").command(&[]).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(code),
                "{case} {answer}: {}",
                both(&out)
            );
        }
    }
}

/// Review 54 (an attack on the three walls above): spellings of "a package there at the
/// start asks for a name" that the first reading missed, each a PASS of a wrong answer on
/// 683ae37: a comment or parentheses inside the call (02, 12), a require made by
/// `createRequire` (03), a name built from a literal start (04, a plugin loader), an
/// `imports` map (06), code in a file with no extension (07), and the trial's package
/// planted as a file `eq-color.js` (09). Review 55 (an attack on that reading) found more,
/// each a PASS of a wrong answer on dc18905: `require.call` (02), an alias of `require` (03),
/// Babel's `"eq-".concat(p)` (04), `"../eq-color"` (05), `_load` (07), code in an unknown
/// extension (08), the names in a data file (12), a line comment inside the call (18), an
/// `eval`'s text (19); now any quoted word of a package counts. Each is a change (exit 4)
/// whose message names the file; an install of a name no package writes still gets its
/// verdict.
#[test]
fn rev54_packages_asking_by_other_spellings_are_read() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    let judge = "const p = require(\"path\").join(__dirname, \"..\", \"result.txt\");\nprocess.exit(require(\"fs\").readFileSync(p, \"utf8\").trim() === \"right\" ? 0 : 1);\n";
    let eq = "{\"name\":\"eq\",\"exports\":{\".\":\"./main.js\",\"./config\":\"./config.js\"}}";
    let mapped = "{\"name\":\"eq\",\"exports\":{\".\":\"./main.js\",\"./config\":\"./config.js\"},\"imports\":{\"#color\":\"eq-color\"}}";
    let opt = "try { require(\"./lib/opt\"); } catch (e) {}\n";
    // Any name may be installed but one a package there writes.
    const INSTALLS: &str = "any";
    // (case, package.json, config.js, (another file of eq, its text), the trial's plant)
    let folder = "mkdir -p node_modules/eq-color && echo \"$YES\" > node_modules/eq-color/index.js";
    let file = "echo \"$YES\" > node_modules/eq-color.js";
    for (case, manifest, config, lib, plant) in [
        (
            "02 comment",
            eq,
            "try { require(/* optional */ \"eq-color\"); } catch (e) {}\n",
            ("", ""),
            folder,
        ),
        (
            "12 parentheses",
            eq,
            "try { require((\"eq-color\")); } catch (e) {}\n",
            ("", ""),
            folder,
        ),
        (
            "03 createRequire",
            eq,
            "const r = require(\"module\").createRequire(__filename);\ntry { r(\"eq-color\"); } catch (e) {}\n",
            ("", ""),
            folder,
        ),
        (
            "04 built name",
            eq,
            "const p = \"color\";\ntry { require(`eq-${p}`); } catch (e) {}\n",
            ("", ""),
            folder,
        ),
        (
            "06 imports map",
            mapped,
            "try { require(\"#color\"); } catch (e) {}\n",
            ("", ""),
            folder,
        ),
        (
            "07 no extension",
            eq,
            opt,
            ("lib/opt", "try { require(\"eq-color\"); } catch (e) {}\n"),
            folder,
        ),
        (
            "09 planted as a file",
            eq,
            "try { require(\"eq-color\"); } catch (e) {}\n",
            ("", ""),
            file,
        ),
        (
            "55/02 require.call",
            eq,
            "try { require.call(null, \"eq-color\"); } catch (e) {}\n",
            ("", ""),
            folder,
        ),
        (
            "55/03 an alias of require",
            eq,
            "const req = typeof __non_webpack_require__ === \"function\" ? __non_webpack_require__ : require;\ntry { req(\"eq-color\"); } catch (e) {}\n",
            ("", ""),
            folder,
        ),
        (
            "55/04 Babel's concat",
            eq,
            "const p = \"color\";\ntry { require(\"eq-\".concat(p)); } catch (e) {}\n",
            ("", ""),
            folder,
        ),
        (
            "55/05 a relative name out of the package",
            eq,
            "try { require(\"../eq-color\"); } catch (e) {}\n",
            ("", ""),
            folder,
        ),
        (
            "55/07 _load",
            eq,
            "try { module.constructor._load(\"eq-color\", module); } catch (e) {}\n",
            ("", ""),
            folder,
        ),
        (
            "55/08 an unknown extension",
            eq,
            "try { require(\"./opt.conf\"); } catch (e) {}\n",
            ("opt.conf", "try { require(\"eq-color\"); } catch (e) {}\n"),
            folder,
        ),
        (
            "55/12 names in data",
            eq,
            "for (const n of require(\"./plugins.json\")) { try { require(n); } catch (e) {} }\n",
            ("plugins.json", "[\"eq-color\"]\n"),
            folder,
        ),
        (
            "57 code in a test folder the package loads",
            eq,
            "try { require(\"./test/loader\"); } catch (e) {}\n",
            (
                "test/loader.js",
                "try { require(\"eq-color\"); } catch (e) {}\n",
            ),
            folder,
        ),
        (
            "55/18 a line comment",
            eq,
            "try { require(\n// optional\n\"eq-color\"); } catch (e) {}\n",
            ("", ""),
            folder,
        ),
        (
            "55/19 an eval's text",
            eq,
            "try { eval(\"require(\\\"eq-color\\\")\"); } catch (e) {}\n",
            ("", ""),
            folder,
        ),
    ] {
        let setup = |answer: &str, trick: &str| {
            let f = Fixture::new(&installing(&plan("", "sh graders/check.sh"), INSTALLS));
            let agent = format!("YES='{YES}'\necho {answer} > result.txt\n{trick}\n");
            let mut files = vec![
                ("graders/package.json", "{}\n"),
                ("graders/check.js", judge),
                (
                    "graders/check.sh",
                    "exec node -\"r\" eq/config graders/check.js\n",
                ),
                ("node_modules/eq/package.json", manifest),
                ("node_modules/eq/config.js", config),
                (
                    "node_modules/eq/main.js",
                    "module.exports = (a, b) => a === b;\n",
                ),
                ("agent.sh", &agent),
            ];
            let extra = format!("node_modules/eq/{}", lib.0);
            if !lib.0.is_empty() {
                files.push((&extra, lib.1));
            }
            write_files(&f, &files);
            f
        };
        let out = setup("wrong", plant).command(&[]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{case}: {said}");
        assert!(
            said.contains("writes that name as a string") && said.contains("node_modules/eq/"),
            "{case}: {said}"
        );
        let out = setup("wrong", "").command(&[]).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{case} (control): {}",
            both(&out)
        );
        let honest = "mkdir -p node_modules/left-pad && echo 'module.exports = 1' > node_modules/left-pad/index.js";
        let out = setup("right", honest).command(&[]).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{case} (honest): {}",
            both(&out)
        );
    }
}

/// Review 54: the configuration a check hands a tool by an option, spelled so the first
/// reading missed it, each a PASS of a wrong answer on 8bf7b2b: `--config ci` (no dot: mocha
/// reads a file by that name, 14), `-r ./setup` (node loads `setup.js`, 15), the option and
/// its value on two lines of a JavaScript array (16), the option inside `npm test`'s script
/// (17), `--test-reporter=./rep.cjs` (18), and `-r ./boot` (a folder: node loads its
/// `index.js`, 19). And `wc -c result.txt` in the same grader names no configuration (H4).
#[test]
fn rev54_configurations_named_by_other_spellings_are_compared() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    // Loads every file argv names after `--config`/`--load` (as a tool would), then judges.
    let tool = "const fs = require(\"fs\"), path = require(\"path\");\nconst a = process.argv.slice(2).join(\"=\").split(\"=\");\nfor (const o of [\"--config\", \"--load\"]) { const i = a.indexOf(o); if (i >= 0 && fs.existsSync(a[i + 1])) require(path.resolve(a[i + 1])); }\nprocess.exit(fs.readFileSync(\"result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n";
    let spawn = "const { spawnSync } = require(\"child_process\");\nconst r = spawnSync(\"node\", [\n  \"graders/tool.js\",\n  \"--config\",\n  \"ci.json\",\n], { stdio: \"inherit\" });\nprocess.exit(r.status);\n";
    // (case, check line, grader script, package.json, the file the trial rewrites)
    for (case, check, script, manifest, file) in [
        (
            "14 no dot",
            "sh graders/check.sh",
            "wc -c result.txt\nexec node graders/tool.js --config ci\n",
            "{}",
            "ci",
        ),
        (
            "15 -r without .js",
            "sh graders/check.sh",
            "exec node -r ./setup graders/tool.js\n",
            "{}",
            "setup.js",
        ),
        ("16 two lines", "node graders/spawn.js", "", "{}", "ci.json"),
        (
            "17 npm script",
            "npm test",
            "",
            "{\"scripts\":{\"test\":\"node graders/tool.js --config ci.json\"}}",
            "ci.json",
        ),
        (
            "18 test reporter",
            "sh graders/check.sh",
            "node --test-reporter=./rep.cjs -e 0 || true\nexec node graders/tool.js --load rep.cjs\n",
            "{}",
            "rep.cjs",
        ),
        (
            "19 a folder",
            "sh graders/check.sh",
            "exec node -r ./boot graders/tool.js\n",
            "{}",
            "boot/index.js",
        ),
    ] {
        if check == "npm test" && !has("npm") {
            skip_or_fail(&current_test(), "npm", "case 17: no npm here");
            continue;
        }
        let setup = |answer: &str, trick: &str| {
            let f = Fixture::new(&plan("", check));
            let agent = format!("YES='{YES}'\necho {answer} > result.txt\n{trick}\n");
            let mut files = vec![
                ("graders/tool.js", tool),
                ("graders/spawn.js", spawn),
                ("graders/package.json", "{}\n"),
                ("package.json", manifest),
                ("agent.sh", &agent),
                (
                    file,
                    if file.ends_with(".json") {
                        "{}\n"
                    } else {
                        "module.exports = {};\n"
                    },
                ),
            ];
            if !script.is_empty() {
                files.push(("graders/check.sh", script));
            }
            write_files(&f, &files);
            f
        };
        let out = setup("wrong", &format!("echo \"$YES\" > {file}"))
            .command(&[])
            .output()
            .unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{case}: {said}");
        assert!(said.contains("changed during the run"), "{case}: {said}");
        for (answer, code) in [("right", 0), ("wrong", 1)] {
            let out = setup(answer, "echo more >> src.js")
                .command(&[])
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(code),
                "{case} {answer}: {}",
                both(&out)
            );
        }
    }
}

/// Review 54, 20: ways into another writable root the first reading of grader text missed,
/// each a PASS of a wrong answer on c816225: `env -C ../shared/app`, `bash -c 'cd
/// ../shared/app && …'`, a JavaScript template `` `cd ../shared/app && …` `` and `cwd:
/// path.join("..", "shared", "app")`. Each is now watched there (exit 4).
#[test]
fn rev54_20_other_ways_into_another_writable_root_are_read() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    let run = "require(\"child_process\").execSync(`cd ../shared/app && ROOT=${process.cwd()} node ${process.cwd()}/graders/tool.js`, { stdio: \"inherit\" });\n";
    let join = "const path = require(\"path\");\nconst r = require(\"child_process\").spawnSync(\"node\", [path.resolve(\"graders/tool.js\")], { cwd: path.join(\"..\", \"shared\", \"app\"), env: { ...process.env, ROOT: process.cwd() }, stdio: \"inherit\" });\nprocess.exit(r.status);\n";
    for (case, check, script) in [
        (
            "env -C",
            "sh graders/check.sh",
            "T=$PWD\nROOT=$T exec env -C ../shared/app node \"$T/graders/tool.js\"\n",
        ),
        (
            "bash -c",
            "sh graders/check.sh",
            "T=$PWD\nexec bash -c 'cd ../shared/app && ROOT=$0 exec node \"$0/graders/tool.js\"' \"$T\"\n",
        ),
        ("template", "node graders/run.js", ""),
        ("path.join", "node graders/join.js", ""),
    ] {
        let setup = |trick: &str| {
            let f = Fixture::new(&format!(
                "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\npolicy:\n  sandbox: {{mode: best_effort, writable: [shared]}}\ntasks:\n  - id: agent\n    cwd: task\n    run: sh agent.sh\n    check: {check}\n"
            ));
            let agent = format!("echo wrong > result.txt\n{trick}\n");
            let mut files = vec![
                ("shared/app/index.js", "module.exports = 1;\n"),
                ("task/graders/tool.js", TOOL),
                ("task/graders/run.js", run),
                ("task/graders/join.js", join),
                ("task/graders/package.json", "{}\n"),
                ("task/agent.sh", &agent),
            ];
            if !script.is_empty() {
                files.push(("task/graders/check.sh", script));
            }
            write_files(&f, &files);
            f
        };
        other_root_is_watched(case, setup);
    }
}

/// Review 55 (an attack on the fixes above), two over-refusals of honest runs, each exit 4 on
/// dc18905: H2, a grader that takes its answer file by a long option (`node graders/check.js
/// --file result.txt`, also `--spec`, `--filter`): an option of the grader script itself,
/// not of a node tool, whose value the agent writes, now gets its verdict. H1, a package there
/// at the start that makes its own require and holds the string `"debug"` (a log level),
/// beside an agent's install of an unused `debug`: since review 55's spellings, any quoted
/// word counts, so this install gets no verdict (exit 4, the file named), the cost of reading
/// no calls; an install of a name no package writes gets its verdict.
#[test]
fn rev55_h1_h2_an_answer_file_option_and_a_string_in_a_bundle_are_no_configuration() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    let check = "const f = process.argv[3]; process.exit(require(\"fs\").readFileSync(f, \"utf8\").trim() === \"right\" ? 0 : 1);\n";
    for option in ["--file", "--spec", "--filter"] {
        for (answer, code) in [("right", 0), ("wrong", 1)] {
            let f = Fixture::new(&plan(
                "",
                &format!("node graders/check.js {option} result.txt"),
            ));
            write_files(
                &f,
                &[
                    ("graders/check.js", check),
                    ("graders/package.json", "{}\n"),
                    ("agent.sh", &format!("echo {answer} > result.txt\n")),
                ],
            );
            let out = f.command(&[]).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(code),
                "{option} {answer}: {}",
                both(&out)
            );
        }
    }
    const INSTALLS: &str = "any";
    let h1 = |install: &str| {
        let f = Fixture::new(&installing(&plan("", "sh graders/check.sh"), INSTALLS));
        let agent = format!(
            "echo right > result.txt\nmkdir -p node_modules/{install} && echo 'module.exports = () => {{}};' > node_modules/{install}/index.js\n"
        );
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
                (
                    "node_modules/eq/config.js",
                    "const { createRequire } = require(\"module\");\nconst r = createRequire(__filename);\nconst level = process.env.LOG || \"debug\";\nmodule.exports = { r, level };\n",
                ),
                ("agent.sh", &agent),
            ],
        );
        f
    };
    let out = h1("debug").command(&[]).output().unwrap();
    let said = both(&out);
    assert_eq!(out.status.code(), Some(4), "H1: {said}");
    assert!(
        said.contains("node_modules/eq/config.js` writes that name as a string"),
        "H1: {said}"
    );
    // A name that no package there writes is an install like any other.
    let out = h1("unused-z").command(&[]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "H1 (unused-z): {}", both(&out));
}

/// Review 55 (an attack on review 54's fixes): configurations handed a tool in spellings the
/// reading missed, each a PASS of a wrong answer on dc18905: `NODE_OPTIONS="--require
/// ./setup.js"` set in a grader script (20), mocha's `--package` (21) and `--ui` (22), a named
/// configuration that is a link the trial re-points (23), `npm test` in a folder the line
/// enters (24), a short option on a continued line (27), node's options in a JavaScript array
/// over several lines, run as `process.execPath` (28), and a quoted name with a space (29).
/// Each is now a change (exit 4); an honest run gets its verdict.
#[test]
fn rev55_configurations_in_other_spellings_are_compared() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    // Loads every file argv names after one of its options (as mocha would), then judges.
    let tool = "const fs = require(\"fs\"), path = require(\"path\");\nconst a = process.argv.slice(2).join(\"=\").split(\"=\");\nfor (const o of [\"--config\", \"--package\", \"--ui\"]) { const i = a.indexOf(o); if (i >= 0 && fs.existsSync(a[i + 1])) require(path.resolve(a[i + 1])); }\nprocess.exit(fs.readFileSync(\"result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n";
    let mocha = format!("#!/usr/bin/env node\n{tool}");
    let spawn = "const { spawnSync } = require(\"child_process\");\nconst r = spawnSync(process.execPath, [\n  \"-r\",\n  \"./setup.js\",\n  \"graders/tool.js\",\n], { stdio: \"inherit\" });\nprocess.exit(r.status);\n";
    // (case, check line, grader script, the file the trial rewrites, app/package.json)
    for (case, check, script, file, app) in [
        (
            "20 NODE_OPTIONS",
            "sh graders/check.sh",
            "export NODE_OPTIONS=\"--require ./setup.js\"\nexec node graders/tool.js\n",
            "setup.js",
            "",
        ),
        (
            "21 --package",
            "sh graders/check.sh",
            "exec graders/mocha --package ci.json\n",
            "ci.json",
            "",
        ),
        (
            "22 --ui",
            "sh graders/check.sh",
            "exec graders/mocha --ui ./tools/ui.js\n",
            "tools/ui.js",
            "",
        ),
        (
            "24 npm test in a folder entered",
            "cd app && npm test",
            "",
            "app/ci.json",
            "{\"scripts\":{\"test\":\"node ../graders/tool.js --config ci.json\"}}",
        ),
        (
            "27 a continued line",
            "sh graders/check.sh",
            "exec node \\\n  -r ./setup.js \\\n  graders/tool.js\n",
            "setup.js",
            "",
        ),
        (
            "28 process.execPath",
            "node graders/spawn.js",
            "",
            "setup.js",
            "",
        ),
        (
            "29 a name with a space",
            "sh graders/check.sh",
            "exec graders/mocha --config \"ci config.json\"\n",
            "ci config.json",
            "",
        ),
    ] {
        if check.contains("npm") && !has("npm") {
            skip_or_fail(&current_test(), "npm", "case 24: no npm here");
            continue;
        }
        let setup = |answer: &str, trick: &str| {
            let f = Fixture::new(&plan("", check));
            let agent = format!("YES='{YES}'\necho {answer} > result.txt\n{trick}\n");
            let mut files = vec![
                ("graders/tool.js", tool),
                ("graders/mocha", &mocha),
                ("graders/spawn.js", spawn),
                ("graders/package.json", "{}\n"),
                ("agent.sh", &agent),
                (
                    file,
                    if file.ends_with(".json") {
                        "{}\n"
                    } else {
                        "module.exports = {};\n"
                    },
                ),
            ];
            if !script.is_empty() {
                files.push(("graders/check.sh", script));
            }
            if !app.is_empty() {
                files.push(("app/package.json", app));
            }
            write_files(&f, &files);
            let exe = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(f.path("graders/mocha"), exe).unwrap();
            if app.is_empty() {
                return f;
            }
            // The answer is judged in `app/`: the agent writes it there too.
            let agent = format!("{agent}echo {answer} > app/result.txt\n");
            write_files(&f, &[("agent.sh", &agent)]);
            f
        };
        let out = setup("wrong", &format!("echo \"$YES\" > '{file}'"))
            .command(&[])
            .output()
            .unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{case}: {said}");
        assert!(said.contains("changed during the run"), "{case}: {said}");
        for (answer, code) in [("right", 0), ("wrong", 1)] {
            let out = setup(answer, "echo more >> src.js")
                .command(&[])
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(code),
                "{case} {answer}: {}",
                both(&out)
            );
        }
    }
    // 23: `ci.json` is a link to `conf/real.json`; the trial points it elsewhere.
    let linked = |answer: &str, trick: &str| {
        let f = Fixture::new(&plan("", "graders/mocha --config ci.json"));
        let agent = format!("YES='{YES}'\necho {answer} > result.txt\n{trick}\n");
        write_files(
            &f,
            &[
                ("graders/mocha", &mocha),
                ("graders/package.json", "{}\n"),
                ("conf/real.json", "{}\n"),
                ("agent.sh", &agent),
            ],
        );
        std::fs::set_permissions(
            f.path("graders/mocha"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        std::os::unix::fs::symlink("conf/real.json", f.path("ci.json")).unwrap();
        f
    };
    let out = linked("wrong", "echo \"$YES\" > evil.js\nln -sfn evil.js ci.json")
        .command(&[])
        .output()
        .unwrap();
    let said = both(&out);
    assert_eq!(out.status.code(), Some(4), "23: {said}");
    assert!(said.contains("ci.json"), "23: {said}");
    for (answer, code) in [("right", 0), ("wrong", 1)] {
        let out = linked(answer, "").command(&[]).output().unwrap();
        assert_eq!(out.status.code(), Some(code), "23 {answer}: {}", both(&out));
    }
}

/// Review 55, 30: ways into another writable root the reading missed, each a PASS of a wrong
/// answer on dc18905: `cd` after a shell keyword (`if`, `then`, `!`), `make -C`, `npm
/// --prefix` and `npm -C`, a `cwd:` built by `require("path").join`, Python's
/// `os.path.join`. Each folder is now watched: no verdict, exit 4, naming the file.
#[test]
fn rev55_30_more_ways_into_another_writable_root_are_read() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    let node = "ROOT=$T node \"$T/graders/tool.js\"";
    let reqpath = "const r = require(\"child_process\").spawnSync(\"node\", [require(\"path\").resolve(\"graders/tool.js\")], { cwd: require(\"path\").join(\"..\", \"shared\", \"app\"), env: { ...process.env, ROOT: process.cwd() }, stdio: \"inherit\" });\nprocess.exit(r.status);\n";
    let py = "import os, subprocess, sys\nsys.exit(subprocess.run([\"node\", os.path.abspath(\"graders/tool.js\")], cwd=os.path.join(\"..\", \"shared\", \"app\"), env={**os.environ, \"ROOT\": os.getcwd()}).returncode)\n";
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "if cd",
            format!("T=$PWD\nif cd ../shared/app; then {node}; fi\n"),
            "sh graders/check.sh",
        ),
        (
            "then cd",
            format!("T=$PWD\nif true; then cd ../shared/app; fi\n{node}\n"),
            "sh graders/check.sh",
        ),
        (
            "! cd",
            format!("T=$PWD\n! cd ../shared/app || true\n{node}\n"),
            "sh graders/check.sh",
        ),
        (
            "make -C",
            "export T=$PWD\nexec make -s -C ../shared/app test\n".to_string(),
            "sh graders/check.sh",
        ),
        (
            "npm --prefix",
            "export T=$PWD\nexec npm --prefix ../shared/app test\n".to_string(),
            "sh graders/check.sh",
        ),
        (
            "npm -C",
            "export T=$PWD\nexec npm -C ../shared/app test\n".to_string(),
            "sh graders/check.sh",
        ),
        (
            "require(\"path\").join",
            String::new(),
            "node graders/req.js",
        ),
    ];
    let mut cases = cases;
    if has("python3") {
        cases.push(("os.path.join", String::new(), "python3 graders/run.py"));
    }
    for (case, script, check) in cases {
        let program = case.split(' ').next().unwrap_or_default();
        if matches!(program, "make" | "npm") && !has(program) {
            skip_or_fail(
                &current_test(),
                program,
                &format!("case {case}: no {program} here"),
            );
            continue;
        }
        let setup = |trick: &str| {
            let f = Fixture::new(&format!(
                "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\npolicy:\n  sandbox: {{mode: best_effort, writable: [shared]}}\ntasks:\n  - id: agent\n    cwd: task\n    run: sh agent.sh\n    check: {check}\n"
            ));
            let agent = format!("echo wrong > result.txt\n{trick}\n");
            let mut files = vec![
                ("shared/app/index.js", "module.exports = 1;\n"),
                (
                    "shared/app/package.json",
                    "{\"scripts\":{\"test\":\"ROOT=$T node $T/graders/tool.js\"}}\n",
                ),
                (
                    "shared/app/Makefile",
                    "test:\n\tROOT=$$T node $$T/graders/tool.js\n",
                ),
                ("task/graders/tool.js", TOOL),
                ("task/graders/req.js", reqpath),
                ("task/graders/run.py", py),
                ("task/graders/package.json", "{}\n"),
                ("task/agent.sh", &agent),
            ];
            if !script.is_empty() {
                files.push(("task/graders/check.sh", &script));
            }
            write_files(&f, &files);
            f
        };
        other_root_is_watched(case, setup);
    }
}

/// Review 56 (an attack on review 55's fixes): a preload a named configuration names in
/// turn, each a PASS of a wrong answer on c8de639: `node --env-file=ci.env` whose
/// `NODE_OPTIONS` requires `./setup.js` (60), a `--config ci.json` that requires
/// `./helper.js` (61), a `package.json`'s `"mocha": {"require": "./helper.js"}` (61); and a
/// grader that changes to another writable root by its own folder (`cd "$(dirname
/// "$0")/…"`, `cd "${0%/*}/…"`, 50). Each is now a change (exit 4); honest runs keep their
/// verdict, also where a mocha `spec` or an nyc `include` lists the file the agent edits
/// (`src.js`: review 57, H20).
#[test]
fn rev56_a_configuration_s_own_preloads_and_the_script_s_own_folder_are_read() {
    if !has("node") {
        skip_or_fail(&current_test(), "node", "no node here");
        return;
    }
    // A tool that requires its `--config` file, and the keys of a `package.json`'s
    // `"mocha"` entry, as mocha does, then judges.
    let tool = "#!/usr/bin/env node\nconst fs = require(\"fs\"), path = require(\"path\");\nconst a = process.argv.slice(2);\nconst i = a.indexOf(\"--config\");\nif (i >= 0) require(path.resolve(a[i + 1]));\nconst pj = fs.existsSync(\"package.json\") ? JSON.parse(fs.readFileSync(\"package.json\", \"utf8\")) : {};\nif (pj.mocha && pj.mocha.require) require(path.resolve(pj.mocha.require));\nprocess.exit(fs.readFileSync(\"result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n";
    // (case, check line, files beside it, the file the trial rewrites)
    for (case, check, extra, file) in [
        (
            "60 --env-file",
            "sh graders/check.sh",
            vec![
                ("ci.env", "NODE_OPTIONS=\"--require ./setup.js\"\n"),
                (
                    "graders/check.sh",
                    "exec node --env-file=./ci.env graders/mocha\n",
                ),
            ],
            "setup.js",
        ),
        (
            "61 a configuration's require",
            "graders/mocha --config ci.json",
            vec![("ci.json", "{\"require\": \"./helper.js\"}\n")],
            "helper.js",
        ),
        (
            "61 package.json's mocha key",
            "graders/mocha",
            vec![(
                "package.json",
                "{\"mocha\": {\"require\": \"./helper.js\", \"spec\": \"./src.js\"}, \"nyc\": {\"include\": [\"./src.js\"]}}\n",
            )],
            "helper.js",
        ),
    ] {
        let setup = |answer: &str, trick: &str| {
            let f = Fixture::new(&plan("", check));
            let agent = format!("YES='{YES}'\necho {answer} > result.txt\n{trick}\n");
            let mut files = vec![
                ("graders/mocha", tool),
                ("graders/package.json", "{}\n"),
                ("agent.sh", agent.as_str()),
                (file, "module.exports = {};\n"),
            ];
            files.extend(extra.iter().copied());
            write_files(&f, &files);
            let exe = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(f.path("graders/mocha"), exe).unwrap();
            f
        };
        let out = setup("wrong", &format!("echo \"$YES\" > {file}"))
            .command(&[])
            .output()
            .unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{case}: {said}");
        assert!(said.contains(file), "{case}: {said}");
        for (answer, code) in [("right", 0), ("wrong", 1)] {
            let out = setup(answer, "echo more >> src.js")
                .command(&[])
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(code),
                "{case} {answer}: {}",
                both(&out)
            );
        }
    }
    for (case, script) in [
        (
            "dirname",
            "T=$PWD\ncd \"$(dirname \"$0\")/../../shared/app\"\nROOT=$T exec node \"$T/graders/tool.js\"\n",
        ),
        (
            "${0%/*}",
            "T=$PWD\ncd \"${0%/*}/../../shared/app\"\nROOT=$T exec node \"$T/graders/tool.js\"\n",
        ),
    ] {
        let setup = |trick: &str| {
            let f = Fixture::new(
                "version: 1\nsampling: {single: {n: 2, c: 0}}\npolicy:\n  sandbox: {mode: best_effort, writable: [shared]}\ntasks:\n  - id: agent\n    cwd: task\n    run: sh agent.sh\n    check: sh graders/check.sh\n",
            );
            let agent = format!("echo wrong > result.txt\n{trick}\n");
            write_files(
                &f,
                &[
                    ("shared/app/index.js", "module.exports = 1;\n"),
                    ("task/graders/tool.js", TOOL),
                    ("task/graders/check.sh", script),
                    ("task/graders/package.json", "{}\n"),
                    ("task/agent.sh", &agent),
                ],
            );
            f
        };
        other_root_is_watched(case, setup);
    }
}

/// A trial that writes `shared/app/.mocharc.js` (and the code it requires) where the check
/// of `setup(trick)` changes to gets no verdict (exit 4, naming the file); without the trick
/// the wrong answer FAILs: the assertions of the "another writable root" tests.
fn other_root_is_watched(case: &str, setup: impl Fn(&str) -> Fixture) {
    let trick = format!(
        "echo '{YES}' > ../shared/app/evil.js\necho 'require(\"./evil.js\")' > ../shared/app/.mocharc.js"
    );
    let out = setup(&trick).command(&[]).output().unwrap();
    let said = both(&out);
    assert_eq!(out.status.code(), Some(4), "{case}: {said}");
    assert!(said.contains("shared/app/.mocharc.js"), "{case}: {said}");
    let out = setup("").command(&[]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{case} (control): {}",
        both(&out)
    );
}
