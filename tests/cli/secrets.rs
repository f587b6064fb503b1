//! Issue 29, secrets and the terminal (docs/trust.md, "Issue 29: secrets, sockets and the
//! terminal"): a task that reads gate's secrets from `/proc`, prints them re-encoded, puts
//! them in a test id, marks up a test id, reaches the GitHub Enterprise tokens or an
//! abstract socket, or pushes input into the terminal gate runs in. Each test is named after
//! the break it pins; one that needs what this machine lacks says it is skipped and why.

use std::path::Path;

use predicates::prelude::*;

use crate::common::*;

/// A plan whose one task runs `script` and then exits 1 (the verdict must stay FAIL).
fn attack(script: &str) -> Fixture {
    let body: Vec<String> = script.lines().map(|l| format!("      {l}")).collect();
    Fixture::new(&format!(
        "version: 1\nsampling: {{single: {{n: 1, c: 0}}}}\ntasks:\n  - id: attack\n    run: |\n{}\n      exit 1\n",
        body.join("\n")
    ))
}

/// The stdout and stderr the attack's trial printed (its log).
fn trial_log(f: &Fixture) -> String {
    let l = f.ledger();
    let row = &attempts(&l)[0];
    row.detail
        .log
        .as_ref()
        .map(|p| read(Path::new(p)))
        .unwrap_or_default()
}

/// The runner's credentials, as a CI job hands them to gate.
const SECRETS: [(&str, &str); 6] = [
    ("GITHUB_TOKEN", "ghs_procEnvironGithubToken0001"),
    ("ACTIONS_RUNTIME_TOKEN", "runtimeTokenFromProcEnviron0002"),
    (
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "oidcRequestTokenFromProc0003",
    ),
    ("AWS_SECRET_ACCESS_KEY", "awsSecretAccessKeyFromProc0004"),
    ("GH_ENTERPRISE_TOKEN", "ghEnterpriseTokenFromProc0005"),
    ("GITHUB_ENTERPRISE_TOKEN", "githubEnterpriseTokenProc0006"),
];

#[test]
fn a_task_reads_gate_secrets_from_proc_ppid_environ() {
    // Issue 29, break 4: as root (and as gate's own user) the task read GITHUB_TOKEN and the
    // runner's tokens from /proc/$PPID/environ. It copies the environment of gate and of
    // every ancestor it can see into `dump/`; none may hold a secret.
    // SAFETY: geteuid only returns an id.
    let root = unsafe { libc::geteuid() } == 0;
    eprintln!(
        "a_task_reads_gate_secrets_from_proc_ppid_environ: running as {}",
        if root { "root" } else { "a non-root user" }
    );
    // gate's pid is in the path of the result file; in a PID namespace of the trial's own,
    // $PPID is the namespace's init and gate is not visible at all.
    let f = attack(
        "g=$(echo \"$GATE_RESULT\" | sed -n 's|.*/gate-\\([0-9]*\\)-[0-9]*-results/.*|\\1|p')\n\
         [ -e /proc/$g ] || echo \"gate $g invisible\"\n\
         for p in $PPID $g; do\n\
         \x20 i=0\n\
         \x20 while [ \"$p\" -gt 1 ] && [ $i -lt 20 ]; do\n\
         \x20   cat /proc/$p/environ > dump/$p 2>/dev/null && echo \"read $p\"\n\
         \x20   p=$(awk '{print $4}' /proc/$p/stat 2>/dev/null || echo 0); i=$((i+1))\n\
         \x20 done\n\
         done",
    );
    std::fs::create_dir(f.path("dump")).unwrap();
    let mut cmd = f.command(&[]);
    for (k, v) in SECRETS {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let log = trial_log(&f);
    // SAFETY: getpid only returns an id.
    let me = unsafe { libc::getpid() };
    assert!(
        log.contains("read ") || log.contains("invisible"),
        "the task neither read an environ nor found gate invisible: {log}"
    );
    let mut read_any = 0;
    for entry in std::fs::read_dir(f.path("dump")).unwrap() {
        let entry = entry.unwrap();
        let bytes = std::fs::read(entry.path()).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        read_any += 1;
        for (k, v) in SECRETS {
            assert!(
                !text.contains(v),
                "{k} readable in /proc/{}/environ (this test is pid {me})",
                entry.file_name().to_string_lossy()
            );
        }
    }
    assert!(read_any > 0 || log.contains("invisible"), "{log}");
    // The statement says what stood.
    let terminal = String::from_utf8(out.stdout).unwrap();
    assert!(
        terminal.contains("gate's /proc environ (a parent process's"),
        "{terminal}"
    );
    let walls = f.ledger().header().sandbox.clone().unwrap();
    assert!(walls.environ_erased);
}

#[test]
fn base64_of_a_secret_gets_past_redaction() {
    // Issue 29, break 4: only a secret's exact bytes were redacted; `base64` of it was kept
    // in the log.
    let secret = "sk-live-base64RedactionCheck42";
    let f = attack(
        "printf '%s' \"$MY_API_KEY\" | base64\n\
         printf 'x%s' \"$MY_API_KEY\" | base64\n\
         printf 'xy%s' \"$MY_API_KEY\" | base64 | tr '+/' '-_'\n\
         printf '%s' \"$MY_API_KEY\" | od -An -tx1 | tr -d ' \\n'; echo\n\
         echo done",
    );
    f.command(&[]).env("MY_API_KEY", secret).assert().code(1);
    let log = trial_log(&f);
    assert!(log.contains("done"), "{log}");
    let b64 = |s: &str| {
        let out = std::process::Command::new("sh")
            .args(["-c", "printf '%s' \"$1\" | base64 -w0", "sh", s])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    for leaked in [
        secret.to_string(),
        b64(secret)[..20].to_string(),
        b64(&format!("x{secret}"))[4..24].to_string(),
        secret
            .bytes()
            .map(|b| format!("{b:02x}"))
            .collect::<String>(),
    ] {
        assert!(!log.contains(&leaked), "`{leaked}` in the log:\n{log}");
    }
    assert!(log.matches("***").count() >= 4, "{log}");
}

#[test]
fn a_secret_in_a_suite_test_case_name_reaches_every_output() {
    // Issue 29, break 5: a parametrize id holding a secret's value was printed verbatim in
    // the terminal, the ledger, JSON, JUnit, Markdown and the step summary.
    let secret = "tok-in-a-test-id-31337";
    let d = tempfile::tempdir().unwrap();
    let summary = d.path().join("step-summary.md");
    std::fs::write(&summary, "").unwrap();
    // The suite writes its JUnit file with the token in a test id and a failure message.
    std::fs::write(
        d.path().join("suite.sh"),
        "cat > \"$GATE_JUNIT\" <<EOF\n\
         <testsuite name=\"s\" tests=\"2\" timestamp=\"$GATE_TRIAL\"><testcase classname=\"t\" name=\"test_login[$SUITE_TOKEN]\"/>\
         <testcase classname=\"t\" name=\"test_logout\"><failure message=\"bad $SUITE_TOKEN\">$SUITE_TOKEN</failure></testcase></testsuite>\n\
         EOF\n",
    )
    .unwrap();
    let out = gate()
        .current_dir(d.path())
        .env("SUITE_TOKEN", secret)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env_remove("GITHUB_ACTIONS")
        .args([
            "suite",
            "--single",
            "1,0",
            "--assume-retries-off",
            "--json",
            "r.json",
            "--junit",
            "j.xml",
            "--summary",
            "s.md",
        ])
        .arg("sh suite.sh")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("test_login[***]"), "{stdout}");
    let ledger = d.path().join("gate-out/ledger.jsonl");
    for (what, text) in [
        ("terminal", stdout.clone()),
        ("stderr", stderr),
        ("ledger", read(&ledger)),
        ("JSON", read(&d.path().join("r.json"))),
        ("JUnit", read(&d.path().join("j.xml"))),
        ("Markdown", read(&d.path().join("s.md"))),
        ("step summary", read(&summary)),
    ] {
        assert!(
            !text.contains(secret),
            "the secret is in the {what}:\n{text}"
        );
    }
}

#[test]
fn the_chart_title_carries_raw_markup_from_a_test_id() {
    // Issue 29, break 16: the step summary's mermaid title kept `<img onerror>`, a link
    // and `</details>` from a test id.
    let d = tempfile::tempdir().unwrap();
    let evil = "&lt;img src=x onerror=alert(1)&gt;[x](https://evil.example)&lt;/details&gt;`";
    std::fs::write(
        d.path().join("r.xml"),
        format!(
            "<testsuite name=\"s\" tests=\"1\"><testcase classname=\"c\" name=\"{evil}\"/></testsuite>"
        ),
    )
    .unwrap();
    gate()
        .current_dir(d.path())
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_ACTIONS")
        .args([
            "ingest",
            "r.xml",
            "--single",
            "1,0",
            "--assume-retries-off",
            "--summary",
            "s.md",
        ])
        .assert()
        .code(0);
    let md = read(&d.path().join("s.md"));
    let title = md
        .lines()
        .find(|l| l.trim_start().starts_with("title "))
        .unwrap_or_else(|| panic!("no chart title:\n{md}"));
    for raw in ["<img", "</details>", "](", "[x]", "`"] {
        assert!(!title.contains(raw), "{raw} in {title}");
    }
    assert!(title.contains("img src=x onerror=alert_1_"), "{title}");
}

#[test]
fn gh_enterprise_tokens_reach_the_task() {
    // Issue 29, break 18: GH_ENTERPRISE_TOKEN and GITHUB_ENTERPRISE_TOKEN were passed on.
    let f = attack("env | grep -E '^(GH|GITHUB)_ENTERPRISE_TOKEN=' && echo escaped\necho tried");
    f.command(&[])
        .env("GH_ENTERPRISE_TOKEN", "ghe-token-value-1")
        .env("GITHUB_ENTERPRISE_TOKEN", "ghe-token-value-2")
        .assert()
        .code(1);
    let log = trial_log(&f);
    assert!(log.contains("tried") && !log.contains("escaped"), "{log}");
}

#[test]
fn an_abstract_unix_socket_outside_the_box_is_reachable() {
    // Issue 29, break 18: a task connected to an abstract unix socket of a process outside
    // the box (a session bus, a container runtime). Landlock ABI 6 scopes them.
    use std::os::linux::net::SocketAddrExt;
    let test = "an_abstract_unix_socket_outside_the_box_is_reachable";
    let abi = gate::runner::sandbox::landlock_abi();
    if abi < 6 {
        eprintln!("{test}: skipped, this kernel has Landlock ABI {abi} (scoping needs 6)");
        return;
    }
    let has_python = std::process::Command::new("python3")
        .args(["-c", "import socket"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_python {
        eprintln!("{test}: skipped, no python3 to connect with");
        return;
    }
    // SAFETY: getpid only returns an id.
    let name = format!("gate-test-abstract-{}", unsafe { libc::getpid() });
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind_addr(&addr).unwrap();
    let f = attack(&format!(
        "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"\\0{name}\"); print(\"escaped\")'\necho tried"
    ));
    let out = f.command(&[]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let log = trial_log(&f);
    assert!(log.contains("tried") && !log.contains("escaped"), "{log}");
    let terminal = String::from_utf8(out.stdout).unwrap();
    assert!(
        terminal.contains("abstract unix sockets scoped, path unix sockets reachable"),
        "{terminal}"
    );
}

#[test]
fn a_task_run_in_a_terminal_pushes_input_with_tiocsti() {
    // Issue 29, break 10: run from a terminal, the task opened /dev/tty and pushed a command
    // into the user's shell with TIOCSTI. Run gate under a pseudo-terminal (`script`).
    let test = "a_task_run_in_a_terminal_pushes_input_with_tiocsti";
    let have = |cmd: &str| {
        std::process::Command::new("sh")
            .args(["-c", &format!("command -v {cmd} >/dev/null")])
            .status()
            .is_ok_and(|s| s.success())
    };
    if !have("script") || !have("python3") {
        eprintln!("{test}: skipped, needs `script` (util-linux) and python3");
        return;
    }
    let f = attack(
        "(exec 3</dev/tty) 2>/dev/null && echo opened-tty\n\
         python3 -c 'import fcntl, termios, os; fd = os.open(\"/dev/tty\", os.O_RDWR); fcntl.ioctl(fd, termios.TIOCSTI, b\"#\"); print(\"pushed\")'\n\
         echo tried",
    );
    let gate_bin = assert_cmd::cargo::cargo_bin("gate");
    let line = format!(
        "{} run plan.yaml --ledger out/ledger.jsonl --no-step-summary </dev/null; echo \"gate-exit=$?\"",
        gate_bin.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(f.dir.path())
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    if !text.contains("gate-exit=") {
        eprintln!("{test}: skipped, `script` gave no terminal here: {text}");
        return;
    }
    assert!(text.contains("gate-exit=1"), "{text}");
    let log = trial_log(&f);
    assert!(log.contains("tried"), "{log}");
    assert!(
        !log.contains("opened-tty") && !log.contains("pushed"),
        "the task reached the terminal:\n{log}"
    );
}

#[test]
fn the_sandbox_line_no_longer_claims_more_than_stood() {
    // Issue 29, break 4: the line said "tokens withheld" while gate's environment was
    // readable; it now says where they are withheld, and what stays readable.
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    f.run(&[]).code(0).stdout(predicate::str::contains(
        "from the task's environment and gate's /proc environ (a parent process's",
    ));
}

#[test]
fn a_chain_of_1100_setsid_processes_outlives_gate() {
    // Issue 29, break 9: gate's orphan sweep stopped after 1,000 rounds, and the 1,100th
    // process of a chain of `setsid` ones kept writing the task's folder after gate exited
    // 0. In a PID namespace per trial process, every one of them dies with the trial.
    if !pid_namespace_here("a_chain_of_1100_setsid_processes_outlives_gate") {
        return;
    }
    let f = attack(
        "sh ./chain.sh 1100 &\n\
         i=0; while [ ! -e beat/leaf ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done\n\
         [ -e beat/leaf ] && echo chained",
    );
    std::fs::write(
        f.path("chain.sh"),
        "n=$1\necho $$ >> beat/pids\nif [ \"$n\" -gt 0 ]; then\n  setsid sh ./chain.sh $((n-1)) &\n  exec sleep 300\nfi\n\
         touch beat/leaf\nwhile :; do date +%s%N > beat/now; sleep 0.1; done\n",
    )
    .unwrap();
    std::fs::create_dir(f.path("beat")).unwrap();
    let out = f.command(&[]).output().unwrap();
    let log = trial_log(&f);
    let walls = f.ledger().header().sandbox.clone().unwrap();
    assert!(
        walls.pid_namespace,
        "the ledger records the PID namespace: {walls:?}"
    );
    let beat = |f: &Fixture| std::fs::read_to_string(f.path("beat/now")).unwrap_or_default();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let first = beat(&f);
    std::thread::sleep(std::time::Duration::from_millis(800));
    let second = beat(&f);
    // Whatever the outcome, end what the chain left: the processes whose working folder is
    // this test's own (the pids the chain recorded may be a PID namespace's, not ours).
    let home = std::fs::canonicalize(f.dir.path()).unwrap();
    let mut alive = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd == home) {
            // SAFETY: kill only sends a signal, to a process of this test's chain.
            if unsafe { libc::kill(pid, libc::SIGKILL) } == 0 {
                alive += 1;
            }
        }
    }
    assert_eq!(out.status.code(), Some(1), "{log}");
    assert!(log.contains("chained"), "the chain never finished: {log}");
    assert_eq!(
        first, second,
        "a process of the chain still writes after gate exited"
    );
    assert_eq!(alive, 0, "{alive} processes of the chain outlived gate");
}

#[test]
fn a_task_signals_its_pid_namespace_init_under_seccomp_only() {
    // Issue 29, break 9 follow-up: in a trial's PID namespace, pid 1 is gate's init. Landlock's
    // signal scope (ABI 6) keeps the task off it, but the seccomp fallback named gate's host
    // pids only: `kill -0 1` worked, `kill -STOP 1` "worked" (an init drops it), and
    // `kill -TERM 1` had the init forward SIGTERM to the whole namespace. The filter refuses
    // pid 1 too.
    if !pid_namespace_here("a_task_signals_its_pid_namespace_init_under_seccomp_only") {
        return;
    }
    let f = attack(
        "kill -0 1 && echo 'signalled init'\n\
         kill -STOP 1 && echo 'stopped init'\n\
         kill -TERM 1 && echo 'terminated init'\n\
         echo survived",
    );
    let out = f
        .command(&[])
        .env("GATE_SANDBOX_MAX_ABI", "5")
        .output()
        .unwrap();
    let log = trial_log(&f);
    assert_eq!(out.status.code(), Some(1), "{log}");
    let walls = f.ledger().header().sandbox.clone().unwrap();
    assert_eq!(
        walls.signals,
        gate::model::SignalWall::Filtered,
        "{walls:?}"
    );
    assert!(walls.pid_namespace, "{walls:?}");
    assert!(!log.contains("init"), "{log}");
    assert!(log.contains("survived"), "{log}");
}

#[test]
fn without_the_mount_layer_the_box_line_states_the_bounded_orphan_sweep() {
    // Issue 29, break 9: the PID namespace is made in the mount layer's namespaces. Without
    // them (GATE_SANDBOX_NO_MOUNTS, or user namespaces refused) a detached process is still
    // killed by gate's orphan sweep, and the ledger and the statement say that this, not a
    // PID namespace, stood.
    let f = attack(
        "setsid sh -c 'echo $$ > pids/escapee; exec sleep 60' &\n\
         while [ ! -s pids/escapee ]; do sleep 0.01; done",
    );
    std::fs::create_dir(f.path("pids")).unwrap();
    std::fs::write(
        f.path("plan.yaml"),
        read(&f.path("plan.yaml")) + "policy: {sandbox: {writable: [pids]}}\n",
    )
    .unwrap();
    let out = f
        .command(&[])
        .env("GATE_SANDBOX_NO_MOUNTS", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let walls = f.ledger().header().sandbox.clone().unwrap();
    assert!(!walls.pid_namespace, "{walls:?}");
    let terminal = String::from_utf8(out.stdout).unwrap();
    if walls.landlock_abi > 0 {
        assert!(
            terminal.contains("detached processes killed by gate's bounded orphan sweep"),
            "{terminal}"
        );
    }
    assert!(!terminal.contains("PID namespace"), "{terminal}");
    let pid: i32 = read(&f.path("pids/escapee")).trim().parse().unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !live_trial_processes(f.dir.path(), &[pid]).is_empty()
        && std::time::Instant::now() < until
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        live_trial_processes(f.dir.path(), &[pid]).is_empty(),
        "the escapee outlived gate in the fallback"
    );
}

/// Issue 29, review S1: a secret the task holds, printed URL-encoded, reversed, as UTF-16
/// bytes or in parts, and secrets under names without TOKEN/SECRET/KEY/PASSWORD (`DB_PASS`,
/// a webhook URL, the password inside `DATABASE_URL`, AWS credentials JSON) reached the
/// ledger, the log and every report.
#[test]
fn url_encoded_reversed_utf16_partial_and_unmarked_secrets_reach_the_reports() {
    let key = "sk-Xq9/Zt+7Lm=8Wv#2Rb&4Np";
    let env = [
        ("OPENAI_API_KEY", key),
        ("DB_PASS", "hunter2-db-Pa55w0rd"),
        (
            "SLACK_WEBHOOK_URL",
            "https://hooks.slack.com/services/T000/B000/XXXXXXXXsecretXXXXXXXX",
        ),
        ("DATABASE_URL", "postgres://app:Sup3rS3cretPw@db:5432/app"),
        ("AWS_CREDENTIALS_JSON", "{\"k\":\"AKIAEXAMPLESECRET99\"}"),
    ];
    let f = attack(
        "k=\"$OPENAI_API_KEY\"\n\
         printf 'urlenc: %s\\n' \"$(printf %s \"$k\" | sed -e 's#/#%2F#g' -e 's/+/%2B/g' -e 's/=/%3D/g' -e 's/#/%23/g' -e 's/&/%26/g')\"\n\
         printf 'urllow: %s\\n' \"$(printf %s \"$k\" | sed -e 's#/#%2f#g' -e 's/+/%2b/g' -e 's/=/%3d/g' -e 's/#/%23/g' -e 's/&/%26/g')\"\n\
         printf 'reversed: %s\\n' \"$(printf %s \"$k\" | rev)\"\n\
         printf 'utf16le: '; printf %s \"$k\" | iconv -t UTF-16LE; echo\n\
         printf 'utf16be: '; printf %s \"$k\" | iconv -t UTF-16BE; echo\n\
         printf 'head: %s\\n' \"${k%?????????}\"\n\
         printf 'tail: %s\\n' \"${k#?????????}\"\n\
         echo \"db_pass: $DB_PASS\"\n\
         echo \"webhook: $SLACK_WEBHOOK_URL\"\n\
         echo \"dburl: $DATABASE_URL\"\n\
         echo \"creds: $AWS_CREDENTIALS_JSON\"\n\
         echo \"home: $PWD\"\n\
         echo done",
    );
    let mut cmd = f.command(&[
        "--json",
        "out/r.json",
        "--junit",
        "out/r.xml",
        "--summary",
        "out/s.md",
    ]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.assert().code(1);
    let log = trial_log(&f);
    assert!(log.contains("done"), "{log}");
    // What gate stored, every byte of it.
    let mut stored = Vec::new();
    for p in ["out/r.json", "out/r.xml", "out/s.md"] {
        stored.extend(std::fs::read(f.path(p)).unwrap());
    }
    stored.extend(std::fs::read(f.ledger_path()).unwrap());
    stored.extend(log.as_bytes());
    let utf16 = |be: bool| -> Vec<u8> {
        key.encode_utf16()
            .flat_map(|u| if be { u.to_be_bytes() } else { u.to_le_bytes() })
            .collect()
    };
    let reversed: String = key.chars().rev().collect();
    let leaks: Vec<(&str, Vec<u8>)> = vec![
        ("exact", key.into()),
        ("url-encoded", "sk-Xq9%2FZt%2B7Lm%3D8Wv%232Rb%264Np".into()),
        (
            "url-encoded, lower hex",
            "sk-Xq9%2fZt%2b7Lm%3d8Wv%232Rb%264Np".into(),
        ),
        ("reversed", reversed.into_bytes()),
        ("utf-16le", utf16(false)[..40].to_vec()),
        ("utf-16be", utf16(true)[1..41].to_vec()),
        ("head (15 characters)", key[..15].into()),
        ("tail (15 characters)", key[9..].into()),
        ("DB_PASS", "hunter2-db-Pa55w0rd".into()),
        ("webhook", "XXXXXXXXsecretXXXXXXXX".into()),
        ("DATABASE_URL password", "Sup3rS3cretPw".into()),
        ("AWS credentials", "AKIAEXAMPLESECRET99".into()),
    ];
    let found = |needle: &[u8]| stored.windows(needle.len()).any(|w| w == needle);
    let leaked: Vec<&str> = leaks
        .iter()
        .filter(|(_, bytes)| found(bytes))
        .map(|(form, _)| *form)
        .collect();
    assert!(leaked.is_empty(), "leaked: {leaked:?}\n{log}");
    // What is not secret stays: the user name in the URL, the working directory.
    assert!(
        log.contains("dburl: postgres://app:***@db:5432/app"),
        "{log}"
    );
    assert!(log.contains("home: /"), "{log}");
}

/// Whether this machine makes a PID namespace per trial process (the mount layer, which
/// needs Landlock); otherwise the test says it is skipped and why.
fn pid_namespace_here(test: &str) -> bool {
    if let Err(why) = gate::runner::mounts::available() {
        skip_or_fail(
            test,
            "mounts",
            &format!("no mount layer here (the PID namespace is made in it): {why}"),
        );
        return false;
    }
    if gate::runner::sandbox::landlock_abi() == 0 {
        skip_or_fail(
            test,
            "landlock",
            "no Landlock here (the mount layer needs it)",
        );
        return false;
    }
    true
}

#[test]
fn a_boxed_trials_waiter_and_init_share_gates_memory_instead_of_copying_it() {
    // Issue 29, speed: the waiter of a trial's PID namespace was a fork of gate, the largest
    // single cost of a boxed trial (docs/performance.md); it and the init now share gate's
    // memory (`CLONE_VM`). Seen from outside, as the kernel compares two processes' memory
    // (`kcmp(KCMP_VM)`): gate's child that lives as long as the trial is gate's memory.
    let test = "a_boxed_trials_waiter_and_init_share_gates_memory_instead_of_copying_it";
    if !pid_namespace_here(test) {
        return;
    }
    let f = attack("sleep 3");
    let mut child = f
        .std_command(&[])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let gate = child.id() as i32;
    // gate's children: the trial's waiter, once it is started.
    // The waiter is gate's child whose children get another PID namespace than gate's (gate
    // also forks, briefly, to make the run's mount namespace: that child is a copy).
    let pid_ns = |pid: i32| std::fs::read_link(format!("/proc/{pid}/ns/pid_for_children")).ok();
    let children = || {
        children_of(gate)
            .into_iter()
            .filter(|&c| pid_ns(c).is_some() && pid_ns(c) != pid_ns(gate))
            .collect::<Vec<_>>()
    };
    let mut waiters = Vec::new();
    for _ in 0..200 {
        waiters = children();
        if !waiters.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // SAFETY: kcmp only compares two processes' resources.
    let same: Vec<(i32, libc::c_long)> = waiters
        .iter()
        .map(|&w| {
            (w, unsafe {
                libc::syscall(libc::SYS_kcmp, gate, w, 1, 0, 0)
            })
        })
        .collect();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1));
    assert!(!waiters.is_empty(), "no child of gate's was seen");
    let walls = f.ledger().header().sandbox.clone().unwrap();
    assert!(walls.pid_namespace, "{walls:?}");
    // 0: the same memory; 1 or 2: another (a copy); -1: the process had already ended.
    assert!(
        same.iter().any(|&(_, r)| r == 0) && same.iter().all(|&(_, r)| r == 0 || r == -1),
        "gate's children and kcmp(KCMP_VM) with gate: {same:?}"
    );
}

#[test]
fn a_task_cannot_read_or_write_the_memory_its_init_shares_with_gate() {
    // The init of a trial's PID namespace (pid 1, the task's parent) shares gate's memory: the
    // task must not read or write it, nor take its descriptors, with Landlock's signal scope
    // and under the seccomp fallback alike (the kernel refuses a tracer's access to a process
    // whose capabilities it lacks; Landlock, to a process outside its domain), nor open what
    // a tracer's read access shows (`maps`, `smaps`, `auxv`, `pagemap`, `environ`: review
    // 18 read them with the CAP_PERFMON a root task kept), and no token reaches it.
    let test = "a_task_cannot_read_or_write_the_memory_its_init_shares_with_gate";
    if !pid_namespace_here(test) {
        return;
    }
    let script = "for p in 1 $PPID; do\n\
         \x20 (exec 3</proc/$p/mem) 2>/dev/null && echo \"opened mem of $p\"\n\
         \x20 for f in maps smaps auxv pagemap environ; do (exec 3</proc/$p/$f) 2>/dev/null && echo \"opened $f of $p\"; done\n\
         \x20 (exec 3<>/proc/$p/mem) 2>/dev/null && echo \"opened mem of $p for writing\"\n\
         \x20 for fd in /proc/$p/fd/*; do readlink $fd >/dev/null 2>&1 && echo \"read fd link of $p\"; done\n\
         \x20 for fd in /proc/$p/fd/*; do (exec 3<$fd) 2>/dev/null && echo \"opened fd of $p\"; done\n\
         \x20 tr '\\0' '\\n' < /proc/$p/environ 2>/dev/null\n\
         done\n\
         echo tried";
    for max_abi in [None, Some("5")] {
        let f = attack(script);
        let mut cmd = f.command(&[]);
        for (k, v) in SECRETS {
            cmd.env(k, v);
        }
        if let Some(abi) = max_abi {
            cmd.env("GATE_SANDBOX_MAX_ABI", abi);
        }
        let out = cmd.output().unwrap();
        let log = trial_log(&f);
        assert_eq!(out.status.code(), Some(1), "{max_abi:?}: {log}");
        assert!(f.ledger().header().sandbox.clone().unwrap().pid_namespace);
        assert!(log.contains("tried"), "{max_abi:?}: {log}");
        assert!(
            !log.contains(" of "),
            "the task reached its init's memory or descriptors ({max_abi:?}): {log}"
        );
        for (k, v) in SECRETS {
            assert!(
                !log.contains(v),
                "{k} read by the task ({max_abi:?}): {log}"
            );
        }
    }
}

#[test]
fn rev18_a_task_keeps_no_capability_that_reads_or_steers_other_processes() {
    // Review 18, A22/A23/A09: a root task kept CAP_PERFMON (perf_event_open sampled every
    // process's user stack on the host, a token among them; read access to its init, which
    // shares gate's memory) and CAP_SYS_NICE (process_madvise on that init paged gate's heap
    // out). It loses them, and CAP_CHECKPOINT_RESTORE; and its init, whose core dump would
    // be gate's memory, dumps none (L1).
    let test = "rev18_a_task_keeps_no_capability_that_reads_or_steers_other_processes";
    if !pid_namespace_here(test) {
        return;
    }
    // The init lowers its core limit once the task has `exec`ed (the task keeps its own),
    // so a task that looks at once may see it before: it looks until it is set, for 5 s at
    // most (the fresh-clone CI of session 31 saw `0 unlimited` once).
    let f = attack(
        "grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status\n\
         for i in $(seq 250); do grep -Eq 'Max core file size +0 +0 ' /proc/1/limits && break; sleep 0.02; done\n\
         grep 'Max core file size' /proc/1/limits\n\
         echo tried",
    );
    let out = f.command(&[]).output().unwrap();
    let log = trial_log(&f);
    assert_eq!(out.status.code(), Some(1), "{log}");
    assert!(log.contains("tried"), "{log}");
    for line in log.lines().filter(|l| l.starts_with("Cap")) {
        let hex = line.split_whitespace().nth(1).unwrap();
        let caps = u64::from_str_radix(hex, 16).unwrap();
        for (bit, name) in [
            (23, "CAP_SYS_NICE"),
            (38, "CAP_PERFMON"),
            (40, "CAP_CHECKPOINT_RESTORE"),
        ] {
            assert_eq!(caps & (1 << bit), 0, "{name} kept: {line}");
        }
    }
    let core = log
        .lines()
        .find(|l| l.starts_with("Max core file size"))
        .unwrap_or_default();
    assert_eq!(
        core.split_whitespace().collect::<Vec<_>>()[4..6],
        ["0", "0"],
        "the init's core limit: {core}"
    );
}

/// Run `gate ingest` on three JUnit files whose one test case is named `name` (XML text),
/// with `MY_API_TOKEN=secret` in gate's environment; every output's text, by name.
fn ingest_with_secret(secret: &str, name: &str) -> Vec<(&'static str, String)> {
    let d = tempfile::tempdir().unwrap();
    let summary = d.path().join("step-summary.md");
    std::fs::write(&summary, "").unwrap();
    let mut files = Vec::new();
    for i in 1..=3 {
        let f = format!("run-{i}.xml");
        std::fs::write(
            d.path().join(&f),
            format!(
                "<testsuite name=\"s\" tests=\"1\" timestamp=\"2026-12-05T00:00:0{i}\">\
                 <testcase classname=\"t\" name=\"{name}\" time=\"0.01\"/></testsuite>"
            ),
        )
        .unwrap();
        files.push(f);
    }
    let out = gate()
        .current_dir(d.path())
        .env("MY_API_TOKEN", secret)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env_remove("GITHUB_ACTIONS")
        .args(["ingest", "--single", "3,0", "--assume-retries-off"])
        .args([
            "--ledger",
            "l.jsonl",
            "--json",
            "r.json",
            "--summary",
            "s.md",
        ])
        .args(&files)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    vec![
        ("terminal", stdout),
        ("stderr", stderr),
        ("ledger", read(&d.path().join("l.jsonl"))),
        ("JSON", read(&d.path().join("r.json"))),
        ("Markdown", read(&d.path().join("s.md"))),
        ("step summary", read(&summary)),
    ]
}

#[test]
fn rev50a_06_a_secret_typed_with_an_escape_is_what_gate_prints_for_its_character() {
    // Review 50 (rev50a 06): a secret holding `\n` as typed (a backslash and an `n`), and a
    // test id holding a real newline there. Redaction found nothing in the id as read; the
    // terminal and JSON then printed the newline as `\n`: the secret's exact bytes, in the
    // terminal, every ledger row and the JSON report.
    let secret = r"pa55\nword-7788";
    for (what, text) in ingest_with_secret(secret, "test_a[pa55&#10;word-7788]") {
        assert!(
            !text.contains(secret),
            "the secret is in the {what}:\n{text}"
        );
    }
}

#[test]
fn rev50a_10_a_task_s_note_with_the_character_of_a_secret_s_escape_is_redacted() {
    // Review 50 (rev50a 10): the secret `hunter\tpass-9911` as typed; the task writes the
    // note with a real tab (JSON `\t` in its result file) and prints it: the ledger and the
    // JSON report wrote the tab as `\t`, the secret's exact bytes.
    let secret = r"hunter\tpass-9911";
    let f = attack(
        "T=$(printf '%s' \"$MY_API_TOKEN\" | sed 's/\\\\t/\\t/')\n\
         echo \"stdout $T\"\n\
         printf '{\"pass\": false, \"note\": \"%s\"}' \"$(printf '%s' \"$T\" | sed 's/\\t/\\\\t/')\" > \"$GATE_RESULT\"",
    );
    let json = f.dir.path().join("r.json");
    let out = f
        .command(&["--json", json.to_str().unwrap()])
        .env("MY_API_TOKEN", secret)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let ledger = read(&f.ledger_path());
    // The note was written (redacted), not dropped: the attack reached the ledger.
    assert!(ledger.contains("\"note\":\""), "{ledger}");
    for (what, text) in [
        ("terminal", stdout),
        ("stderr", stderr),
        ("ledger", ledger),
        ("JSON", read(&json)),
        ("log", trial_log(&f)),
    ] {
        assert!(
            !text.contains(secret),
            "the secret is in the {what}:\n{text}"
        );
    }
}

#[test]
fn rev50a_16_a_chart_title_s_blanks_do_not_spell_a_secret() {
    // Review 50 (rev50a 16): a secret with `_` every few characters (no 12-character piece
    // without one) and a test id with `#` there: the chart title maps every `#` to `_` and
    // printed the secret in the Markdown summary and the step summary.
    let secret = "tok_ab12cd34_ef56gh78";
    let outputs = ingest_with_secret(secret, "test_a[tok#ab12cd34#ef56gh78]");
    let md = &outputs.iter().find(|(w, _)| *w == "Markdown").unwrap().1;
    assert!(md.contains("title \""), "no chart:\n{md}");
    for (what, text) in &outputs {
        assert!(
            !text.contains(secret),
            "the secret is in the {what}:\n{text}"
        );
    }
}

#[test]
fn rev50d_01_02_a_secret_split_by_an_ansi_escape_or_a_control_character_stays_out_of_the_junit() {
    // Review 50 (rev50d 01, 02): the task prints the secret cut by an ANSI colour sequence
    // (stdout), by a C0 control character (stderr), and writes it cut by an ANSI sequence in
    // its note. No 12-character piece is whole on either side, so the first redaction finds
    // nothing; quick-junit then strips ANSI sequences and control characters, and the JUnit
    // report (written as serialised, not redacted again) held the secret whole.
    let secret = "s3cr3t-value-123456";
    let f = attack(
        r#"A=$(printf %s "$MY_API_TOKEN" | cut -c1-9); B=$(printf %s "$MY_API_TOKEN" | cut -c10-)
printf 'out %s\033[31m%s\n' "$A" "$B"
printf 'err %s\001%s\n' "$A" "$B" >&2
printf '{"pass": false, "note": "note %s\\u001b[31m%s"}' "$A" "$B" > "$GATE_RESULT""#,
    );
    let junit = f.dir.path().join("j.xml");
    let out = f
        .command(&["--junit", junit.to_str().unwrap()])
        .env("MY_API_TOKEN", secret)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let xml = read(&junit);
    // The attack reached the report: its output, redacted as the XML holds it, and its note
    // (gate prints the escape's character as `\u{1b}`, which keeps the secret apart).
    assert!(xml.contains("out ***"), "{xml}");
    assert!(xml.contains("err ***"), "{xml}");
    assert!(xml.contains("note: note s3cr3t-va"), "{xml}");
    assert!(!xml.contains(secret), "the secret is in the JUnit:\n{xml}");
}

#[test]
fn rev50d_03_a_secret_of_a_task_s_env_stays_out_of_the_rendered_summary() {
    // Review 50 (rev50d 03): a secret given only in the plan's task `env:` (not in gate's
    // environment) holding a space. The task writes its note with `\u0001` where the secret
    // has the space, so the first redaction finds nothing; the Markdown summary folds the
    // control character to a space, and its second redaction, as rendered, knew gate's
    // environment only.
    let secret = "s3cr3t-va1u e-x9-12345";
    let f = Fixture::new(&format!(
        "version: 1\nsampling: {{single: {{n: 2, c: 1}}}}\ntasks:\n  - id: t1\n    run: |\n      \
         V=$(printf %s \"$PLAN_API_TOKEN\" | sed 's/ /\\\\u0001/')\n      \
         printf '{{\"pass\": false, \"note\": \"note %s\"}}' \"$V\" > \"$GATE_RESULT\"\n      \
         exit 1\n    env:\n      PLAN_API_TOKEN: \"{secret}\"\n"
    ));
    let dir = f.dir.path();
    let (md, json, junit, step) = (
        dir.join("s.md"),
        dir.join("r.json"),
        dir.join("j.xml"),
        dir.join("step.md"),
    );
    let out = f
        .command(&[
            "--summary",
            md.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ])
        .env("GITHUB_STEP_SUMMARY", &step)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let summary = read(&md);
    // The note reached the summary (so the redaction, not its absence, keeps the secret out).
    assert!(summary.contains("note "), "{summary}");
    for (what, text) in [
        ("summary", summary),
        ("step summary", read(&step)),
        ("JSON report", read(&json)),
        ("JUnit", read(&junit)),
        ("stdout", stdout),
        ("stderr", stderr),
        ("ledger", read(&f.ledger_path())),
    ] {
        assert!(
            !text.contains(secret),
            "the secret is in the {what}:\n{text}"
        );
    }
    // Review 51, 02: `gate report` renders the same ledger without the plan's `env:`; the
    // Markdown now shows the control character rather than folding it to a blank.
    let again = dir.join("again.md");
    let out = gate()
        .current_dir(dir)
        .args(["report", "--summary", again.to_str().unwrap()])
        .arg(f.ledger_path())
        .env("GITHUB_STEP_SUMMARY", &step)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = read(&again);
    assert!(summary.contains("note "), "{summary}");
    for (what, text) in [
        ("re-rendered summary", summary),
        ("step summary", read(&step)),
    ] {
        assert!(
            !text.contains(secret),
            "the secret is in the {what}:\n{text}"
        );
    }
}
