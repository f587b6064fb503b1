//! Which word of an interpreter's command is what it runs (issue 29, review 11): the one
//! table of interpreter options, and the one decision the allow-list of `check:` lines
//! ([`super::grammar`]) and what is protected ([`super::state`], [`super::words`]) both
//! read.
//!
//! Before, each reader skipped option values by its own list, and where they disagreed
//! (`bash -euo pipefail grade`, `perl -lwe CODE`, `node --title x check`, `node -r
//! ./setup.js`) one took an option's value for the script and the other the script for
//! data: the grader went unprotected and a wrong answer passed. Now [`invocation`] reads
//! an interpreter's words once, from one table per interpreter: which options take a
//! value (glued, or the next word), which values are files the interpreter loads
//! (`node -r F`, `perl -I DIR`, `ruby -r F`, `bash --rcfile F`), and whether the program is
//! a script operand, inline code (every `-e` of it), a `python -m` module, or read from
//! stdin. An option gate does not know, a cluster it cannot read, code glued to its option
//! or an option that moves the interpreter elsewhere (`ruby -C DIR`, `perl -S`) makes it
//! give up: the line is refused rather than guessed at.

/// A command word's program name: its last path component, lower-cased.
pub(super) fn name_of(word: &str) -> String {
    word.rsplit('/').next().unwrap_or(word).to_ascii_lowercase()
}

/// `python3.12` → `python`, `bash5` → `bash`: the name without a trailing version.
pub(super) fn bare(name: &str) -> &str {
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
}

pub(super) fn is_python(name: &str) -> bool {
    let b = bare(name);
    b.starts_with("python") || b.starts_with("pypy")
}

/// The interpreters [`invocation`] reads, by their option tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    Shell,
    Python,
    Node,
    Deno,
    Bun,
    Perl,
    Ruby,
    Php,
    Lua,
    /// `source F`, `. F`.
    Source,
    /// tclsh, Rscript, julia, elixir: `-e CODE` or a script.
    Other,
}

/// What an interpreter runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Runs {
    /// The word at this index is the script.
    Script(usize),
    /// Inline code: the index of every code word (`perl -e A -e B`).
    Code(Vec<usize>),
    /// `python -m NAME`: the word's index and the module's name.
    Module(usize, String),
    /// The program is read from stdin (no script, `-`, `-s`, `/dev/stdin`).
    Stdin,
    /// Nothing (`--version`, `--help`).
    Nothing,
    /// `node --test F|DIR…`: the index of every test file or folder node's test runner
    /// runs (review 13, b09); a folder is run whole.
    Tests(Vec<usize>),
}

/// An interpreter's command read by [`invocation`].
#[derive(Debug, Clone)]
pub(super) struct Invocation {
    pub(super) family: Family,
    pub(super) runs: Runs,
    /// The indices of its option words and of values that load nothing.
    pub(super) options: Vec<usize>,
    /// Option values that name a file or folder the interpreter loads: the word's index
    /// and the value (glued ones without their option: `-Ilib` gives `lib`).
    pub(super) loads: Vec<(usize, String)>,
    /// The index of the first argument after what it runs (data to it).
    pub(super) rest: usize,
}

/// The family of interpreter `name` (a command word's last component, lower case).
pub(super) fn family(name: &str) -> Option<Family> {
    if matches!(name, "source" | ".") {
        return Some(Family::Source);
    }
    let b = bare(name);
    Some(match b {
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "fish" => Family::Shell,
        _ if is_python(name) => Family::Python,
        "node" | "nodejs" | "tsx" | "ts-node" => Family::Node,
        "deno" => Family::Deno,
        "bun" => Family::Bun,
        "perl" => Family::Perl,
        "ruby" => Family::Ruby,
        "php" => Family::Php,
        "lua" | "luajit" => Family::Lua,
        "tclsh" | "rscript" | "julia" | "elixir" => Family::Other,
        _ => return None,
    })
}

/// `p` with `//`, `/./` and `x/..` removed as text (review 11, a09: `/dev//fd/3` is
/// `/dev/fd/3`).
pub(super) fn lexical(p: &str) -> String {
    let absolute = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            c => parts.push(c),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Whether path `p` is the process's stdin.
pub(super) fn is_stdin(p: &str) -> bool {
    matches!(
        lexical(p).as_str(),
        "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" | "/proc/thread-self/fd/0"
    )
}

fn unknown(name: &str, t: &str) -> String {
    format!(
        "the option `{t}` of `{name}`, which gate does not know, so it cannot tell which word is the script"
    )
}

fn glued(t: &str) -> String {
    format!(
        "the option `{t}`, which runs code glued to it (write the code as a word of its own after `-c` / `-e`)"
    )
}

/// Reads interpreter command `args` (`args[0]` the interpreter, see the module doc): what
/// it runs and which of its words are options, inert values and loaded files; or why gate
/// cannot tell for certain.
pub(super) fn invocation(args: &[&str]) -> Result<Invocation, String> {
    let name = name_of(args[0]);
    let Some(family) = family(&name) else {
        return Err(format!(
            "`{}`, which gate does not read as an interpreter",
            args[0]
        ));
    };
    let mut inv = Invocation {
        family,
        runs: Runs::Stdin,
        options: Vec::new(),
        loads: Vec::new(),
        rest: args.len(),
    };
    let mut codes = Vec::new();
    let mut i = 1;
    // Options whose value is the next word, in order (`bash -euo pipefail`).
    let mut stdin = false;
    let mut code_next = false;
    let mut code_operand = false;
    let mut tests = false;
    while let Some(&t) = args.get(i) {
        if code_next {
            codes.push(i);
            code_next = false;
            i += 1;
            // Python's `-c CODE` ends its options: the words after it are `sys.argv`.
            if family == Family::Python {
                break;
            }
            continue;
        }
        // A shell reads `-` as `--`: the next word is the script (`sh - graders/grade`).
        if t == "--" || (t == "-" && family == Family::Shell && args.len() > i + 1) {
            inv.options.push(i);
            i += 1;
            break;
        }
        let short = (t.starts_with('-') || (family == Family::Shell && t.starts_with('+')))
            && t.len() > 1
            && !t.starts_with("--");
        let long = t.starts_with("--") && t.len() > 2;
        if family == Family::Bun && i == 1 && t == "run" || family == Family::Deno && t == "run" {
            inv.options.push(i);
            i += 1;
            continue;
        }
        if family == Family::Deno && i == 1 && t == "eval" {
            inv.options.push(i);
            code_next = true;
            i += 1;
            continue;
        }
        if !(short || long) {
            break;
        }
        inv.options.push(i);
        // Values that follow as the next words: (takes a value, loads it).
        let mut values: Vec<(bool, char)> = Vec::new();
        if long && family == Family::Node && t == "--test" {
            tests = true;
        } else if long {
            let (opt, glued_value) = match t.split_once('=') {
                Some((o, v)) => (o, Some(v)),
                None => (t, None),
            };
            if family == Family::Node
                && matches!(
                    opt,
                    "--watch"
                        | "--watch-path"
                        | "--watch-preserve-output"
                        | "--inspect-brk"
                        | "--inspect-wait"
                )
            {
                // Node knows them (review 13, b19), but a check run so never ends by itself.
                return Err(format!(
                    "`{t}`: node then waits (for a file to change, or for a debugger) and the \
                     check never ends by itself (leave it off the `check:` line)"
                ));
            }
            let (valued, loads, code, ends) =
                long_option(family, opt).ok_or_else(|| unknown(&name, t))?;
            if family == Family::Node && opt == "--test-reporter" {
                node_reporter(glued_value.or(args.get(i + 1).copied()))?;
            }
            if code {
                if glued_value.is_some() {
                    return Err(glued(t));
                }
                code_next = true;
            } else if ends {
                inv.runs = Runs::Nothing;
                inv.rest = args.len();
                return Ok(inv);
            } else if valued {
                match glued_value {
                    Some(v) => {
                        if loads {
                            inv.loads.push((i, v.to_string()));
                        }
                        python_x(family, opt, v)?;
                    }
                    None => values.push((loads, ' ')),
                }
            } else if glued_value.is_some()
                && !matches!(
                    family,
                    Family::Node | Family::Deno | Family::Bun | Family::Ruby | Family::Other
                )
            {
                return Err(unknown(&name, t));
            }
        } else {
            let cluster: Vec<char> = t[1..].chars().collect();
            let mut j = 0;
            while j < cluster.len() {
                let c = cluster[j];
                let rest: String = cluster[j + 1..].iter().collect();
                match short_option(family, c) {
                    Short::Flag => {}
                    Short::Stdin => stdin = true,
                    Short::Code => {
                        match family {
                            // `sh -ce CODE`: the code is the first operand.
                            Family::Shell => code_operand = true,
                            _ if !(rest.is_empty()
                                || (family == Family::Node && c == 'p' && rest == "e")) =>
                            {
                                return Err(glued(t));
                            }
                            _ => {
                                code_next = true;
                                if family == Family::Node && c == 'p' && rest == "e" {
                                    j += 1;
                                }
                            }
                        }
                    }
                    Short::Next(loads) => {
                        if family == Family::Shell || rest.is_empty() {
                            values.push((loads, c));
                        } else {
                            if loads {
                                inv.loads.push((i, rest.clone()));
                            }
                            if family == Family::Perl && matches!(c, 'M' | 'm') {
                                let dirs = perl_lib_dirs(&rest)?;
                                inv.loads.extend(dirs.into_iter().map(|d| (i, d)));
                            }
                            if c == 'X' {
                                python_x(family, "-X", &rest)?;
                            }
                            break;
                        }
                    }
                    Short::Glued => break,
                    Short::Digits => {
                        // Octal digits (`-l0`, `-0777`), or `x` and hex digits (`-0x1F`).
                        if cluster.get(j + 1) == Some(&'x') {
                            j += 1;
                            while cluster.get(j + 1).is_some_and(char::is_ascii_hexdigit) {
                                j += 1;
                            }
                        } else {
                            while cluster.get(j + 1).is_some_and(|d| ('0'..='7').contains(d)) {
                                j += 1;
                            }
                        }
                    }
                    Short::Module => {
                        let (at, m) = if rest.is_empty() {
                            (i + 1, args.get(i + 1).map(|s| s.to_string()))
                        } else {
                            (i, Some(rest.clone()))
                        };
                        let Some(m) = m else {
                            return Err(format!("`{t}` without a module"));
                        };
                        inv.runs = Runs::Module(at, m);
                        inv.rest = at + 1;
                        return Ok(inv);
                    }
                    Short::End => {
                        inv.runs = Runs::Nothing;
                        inv.rest = args.len();
                        return Ok(inv);
                    }
                    Short::Refused(why) => return Err(format!("`{t}` ({why})")),
                    Short::Unknown => {
                        return Err(unknown(&name, t));
                    }
                }
                j += 1;
            }
        }
        i += 1;
        for (loads, letter) in values {
            let Some(&v) = args.get(i) else { break };
            if loads {
                inv.loads.push((i, v.to_string()));
            } else {
                inv.options.push(i);
            }
            if letter == 'X' {
                python_x(family, "-X", v)?;
            }
            if family == Family::Perl && matches!(letter, 'M' | 'm') {
                let dirs = perl_lib_dirs(v)?;
                inv.loads.extend(dirs.into_iter().map(|d| (i, d)));
            }
            i += 1;
        }
    }
    if code_next {
        return Err(format!("`{}` without its code", args[args.len() - 1]));
    }
    if tests && codes.is_empty() {
        return node_tests(args, i, inv);
    }
    if code_operand {
        if i >= args.len() {
            return Err("`-c` without its code".into());
        }
        codes.push(i);
        i += 1;
    }
    if !codes.is_empty() {
        inv.runs = Runs::Code(codes);
        inv.rest = i;
        return Ok(inv);
    }
    if stdin || i >= args.len() {
        inv.runs = Runs::Stdin;
        inv.rest = i;
        return Ok(inv);
    }
    if args[i] == "-" || is_stdin(args[i]) {
        inv.runs = Runs::Stdin;
        inv.rest = i + 1;
        return Ok(inv);
    }
    inv.runs = Runs::Script(i);
    inv.rest = i + 1;
    Ok(inv)
}

/// `node --test-reporter NAME` (review 13, b09): one of node's own reporters, or a module
/// named by its path (loaded, so protected); a bare package name node would look up in
/// a `node_modules` a trial could create is refused.
fn node_reporter(v: Option<&str>) -> Result<(), String> {
    let Some(v) = v else { return Ok(()) };
    let builtin = matches!(v, "spec" | "tap" | "dot" | "junit" | "lcov");
    let path = v.starts_with("./") || v.starts_with("../") || v.starts_with('/');
    if builtin || path {
        return Ok(());
    }
    Err(format!(
        "`--test-reporter {v}`, a reporter node looks up in a `node_modules` a trial could \
         create (use one of node's own, `spec`, `tap`, `dot`, `junit`, `lcov`, or name the \
         module by its path: `./reporters/x.js`)"
    ))
}

/// `node --test OPERANDS` from `args[i]` on (review 13, b09): every operand is a test file
/// or folder node runs. With none, node runs every file of its default patterns beneath the
/// current folder (`**/*.test.js`, `**/test/**/*.js`, …), which a trial can add to: refused,
/// as is an option after an operand (gate cannot tell how node reads it).
fn node_tests(args: &[&str], i: usize, mut inv: Invocation) -> Result<Invocation, String> {
    if i >= args.len() {
        return Err(
            "`node --test` without a test file or folder: node then runs every file of its \
             default patterns (`**/*.test.js`, `**/test/**/*.js`, …) beneath the current \
             folder, where a trial can add one (name the tests: `node --test test/`)"
                .into(),
        );
    }
    if let Some(o) = args[i..].iter().find(|a| a.starts_with('-')) {
        return Err(format!(
            "the option `{o}` after the test files of `node --test` (write the options first)"
        ));
    }
    inv.runs = Runs::Tests((i..args.len()).collect());
    inv.rest = args.len();
    Ok(inv)
}

/// The folders a perl `-M`/`-m` value puts on `@INC` (review 13, b03, b08): `-Mlib=DIRS`
/// (comma-separated), `-M'lib qw(DIRS)'` and `-M'lib "DIR"'` are loads of each folder,
/// as `-I DIR` is; a `lib` or `if` spec gate cannot read word by word is refused. Any
/// other module (`-MJSON::PP`, `-Mstrict`) puts nothing on `@INC`.
fn perl_lib_dirs(spec: &str) -> Result<Vec<String>, String> {
    // `-M-lib=…` is `no lib …`.
    let s = spec.strip_prefix('-').unwrap_or(spec);
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(s.len());
    let (module, args) = s.split_at(end);
    let refuse = || {
        Err(format!(
            "`-M{spec}`, which changes perl's module search path in a way gate cannot read \
             (write `-I DIR`, which gate protects)"
        ))
    };
    match module {
        "lib" => {}
        // `-M'if 1, lib => "lib"'`: a conditional `use lib`.
        "if" if args.contains("lib") => return refuse(),
        _ => return Ok(Vec::new()),
    }
    if let Some(dirs) = args.strip_prefix('=') {
        return Ok(dirs
            .split(',')
            .filter(|d| !d.is_empty())
            .map(str::to_string)
            .collect());
    }
    let args = args.trim();
    if args.is_empty() {
        return Ok(Vec::new());
    }
    // `lib qw(a b)` or `lib "a", 'b'`: plain words only.
    let inner = match args.strip_prefix("qw") {
        Some(q) => {
            let q = q.trim_start();
            let Some(open) = q.chars().next() else {
                return refuse();
            };
            let close = match open {
                '(' => ')',
                '[' => ']',
                '{' => '}',
                '<' => '>',
                c if c.is_ascii_punctuation() => c,
                _ => return refuse(),
            };
            match q[1..].strip_suffix(close) {
                Some(i) => i.split_whitespace().map(str::to_string).collect::<Vec<_>>(),
                None => return refuse(),
            }
        }
        None => {
            let mut out = Vec::new();
            for part in args.split(',') {
                let p = part.trim();
                let plain = p.len() >= 2
                    && (p.starts_with('"') && p.ends_with('"')
                        || p.starts_with('\'') && p.ends_with('\''))
                    && !p[1..p.len() - 1].contains(['"', '\'', '$', '@', '\\']);
                if !plain {
                    return refuse();
                }
                out.push(p[1..p.len() - 1].to_string());
            }
            out
        }
    };
    if inner.iter().any(|d| d.contains(['$', '@', '\\'])) {
        return refuse();
    }
    Ok(inner)
}

/// `python -X pycache_prefix=DIR` (review 11, a29): Python then loads compiled modules,
/// the standard library's too, from DIR only; a relative one lies in the trials' folder.
fn python_x(family: Family, opt: &str, v: &str) -> Result<(), String> {
    if family == Family::Python
        && opt == "-X"
        && let Some(dir) = v.strip_prefix("pycache_prefix")
        && !dir.trim_start_matches('=').starts_with('/')
    {
        return Err(format!(
            "`-X {v}`, a cache of compiled modules in a folder the trials write (Python loads the standard library's from it)"
        ));
    }
    Ok(())
}

/// What a letter of a short option cluster does.
enum Short {
    /// Takes nothing.
    Flag,
    /// The program is read from stdin (`sh -s`).
    Stdin,
    /// Runs inline code.
    Code,
    /// Takes a value: the rest of the cluster, or else the next word (for a shell, always
    /// the next word); whether the value is a file or folder the interpreter loads.
    Next(bool),
    /// Takes the rest of the cluster, if any, as its value (`perl -C7`, `-i.bak`).
    Glued,
    /// Takes glued digits (`perl -l`, `-0777`).
    Digits,
    /// `python -m NAME`.
    Module,
    /// Runs nothing (`--version`-like).
    End,
    /// Gate cannot follow it.
    Refused(&'static str),
    Unknown,
}

fn short_option(family: Family, c: char) -> Short {
    match family {
        Family::Shell => match c {
            'c' => Short::Code,
            's' => Short::Stdin,
            'o' | 'O' => Short::Next(false),
            c if "abefhkmnptuvxBCEHPTilrD".contains(c) => Short::Flag,
            _ => Short::Unknown,
        },
        Family::Python => match c {
            'c' => Short::Code,
            'm' => Short::Module,
            'W' | 'X' | 'Q' => Short::Next(false),
            'V' | 'h' => Short::End,
            c if "bBdEiIOPqsSuvxR".contains(c) => Short::Flag,
            _ => Short::Unknown,
        },
        Family::Node => match c {
            'e' | 'p' => Short::Code,
            'r' => Short::Next(true),
            'C' => Short::Next(false),
            'v' | 'h' => Short::End,
            'i' | 'c' => Short::Flag,
            _ => Short::Unknown,
        },
        Family::Deno => match c {
            'A' | 'q' | 'r' => Short::Flag,
            'c' => Short::Next(true),
            _ => Short::Unknown,
        },
        Family::Bun => match c {
            'e' | 'p' => Short::Code,
            'r' => Short::Next(true),
            _ => Short::Unknown,
        },
        Family::Perl => match c {
            'e' | 'E' => Short::Code,
            'I' => Short::Next(true),
            'M' | 'm' => Short::Next(false),
            'l' | '0' => Short::Digits,
            'i' | 'C' | 'd' | 'D' | 'x' | 'F' | 'V' => Short::Glued,
            'S' => Short::Refused("perl looks the script up on `PATH`"),
            'v' | 'h' => Short::End,
            c if "acnpstTuUwWXfg".contains(c) => Short::Flag,
            _ => Short::Unknown,
        },
        Family::Ruby => match c {
            'e' => Short::Code,
            'r' | 'I' => Short::Next(true),
            'E' => Short::Next(false),
            '0' => Short::Digits,
            'W' | 'T' | 'x' | 'F' | 'K' => Short::Glued,
            'C' => Short::Refused("ruby changes to another folder before it runs"),
            'S' => Short::Refused("ruby looks the script up on `PATH`"),
            'v' | 'h' => Short::End,
            c if "acdlnpswyU".contains(c) => Short::Flag,
            _ => Short::Unknown,
        },
        Family::Php => match c {
            'r' => Short::Code,
            'c' => Short::Next(true),
            'n' | 'q' | 'H' | 'e' => Short::Flag,
            'v' | 'h' | 'i' | 'm' => Short::End,
            _ => Short::Unknown,
        },
        Family::Lua => match c {
            'e' => Short::Code,
            'i' | 'E' | 'W' => Short::Flag,
            'v' => Short::End,
            'l' => {
                Short::Refused("lua loads a module from a search path that holds the task's folder")
            }
            _ => Short::Unknown,
        },
        Family::Other => match c {
            'e' | 'E' => Short::Code,
            'L' | 'r' => Short::Next(true),
            'q' => Short::Flag,
            _ => Short::Unknown,
        },
        Family::Source => Short::Unknown,
    }
}

/// A long option of `family` (without its `=value`): (takes a value, the value is a file
/// it loads, runs code, runs nothing); `None` when gate does not know it.
fn long_option(family: Family, o: &str) -> Option<(bool, bool, bool, bool)> {
    const FLAG: (bool, bool, bool, bool) = (false, false, false, false);
    const VALUE: (bool, bool, bool, bool) = (true, false, false, false);
    const LOADS: (bool, bool, bool, bool) = (true, true, false, false);
    const CODE: (bool, bool, bool, bool) = (false, false, true, false);
    const END: (bool, bool, bool, bool) = (false, false, false, true);
    Some(match (family, o) {
        (_, "--version" | "--help") => END,
        (Family::Shell, "--rcfile" | "--init-file") => LOADS,
        (
            Family::Shell,
            "--norc" | "--noprofile" | "--posix" | "--login" | "--noediting" | "--restricted"
            | "--verbose",
        ) => FLAG,
        (Family::Python, "--check-hash-based-pycs") => VALUE,
        (Family::Python, "--help-all" | "--help-env" | "--help-xoptions") => END,
        (Family::Node | Family::Bun, "--eval" | "--print") => CODE,
        (
            Family::Node | Family::Bun | Family::Deno,
            "--require"
            | "--import"
            | "--loader"
            | "--experimental-loader"
            | "--env-file"
            | "--env-file-if-exists"
            | "--preload"
            | "--config"
            | "--import-map",
        ) => LOADS,
        (
            Family::Node,
            "--conditions"
            | "--title"
            | "--input-type"
            | "--max-old-space-size"
            | "--stack-size"
            | "--unhandled-rejections"
            | "--experimental-default-type"
            | "--dns-result-order"
            | "--stack-trace-limit",
        ) => VALUE,
        (
            Family::Node,
            "--no-warnings"
            | "--no-deprecation"
            | "--trace-warnings"
            | "--trace-deprecation"
            | "--throw-deprecation"
            | "--enable-source-maps"
            | "--experimental-vm-modules"
            | "--experimental-strip-types"
            | "--preserve-symlinks"
            | "--preserve-symlinks-main"
            | "--abort-on-uncaught-exception"
            | "--trace-uncaught"
            | "--pending-deprecation"
            | "--frozen-intrinsics"
            | "--expose-gc"
            | "--check"
            | "--interactive"
            // Review 13 (b09, b19), each checked against `node --help` (v20): these take
            // no value, or only one glued with `=` (`--inspect=0`).
            | "--test-only"
            | "--test-force-exit"
            | "--inspect"
            | "--jitless"
            | "--harmony"
            | "--experimental-test-coverage"
            | "--experimental-test-module-mocks"
            | "--experimental-detect-module"
            | "--experimental-require-module"
            | "--experimental-import-meta-resolve"
            | "--experimental-print-required-tla"
            | "--experimental-wasm-modules"
            | "--experimental-eventsource"
            | "--experimental-websocket"
            | "--experimental-permission"
            | "--experimental-global-webcrypto"
            | "--experimental-global-customevent"
            | "--experimental-fetch"
            | "--experimental-repl-await"
            // Removed in node 20: accepted, and the next word is not its value
            // (`node --experimental-specifier-resolution -e CODE` runs CODE).
            | "--experimental-specifier-resolution",
        ) => FLAG,
        // V8's `--harmony-*` features and node's `--no-experimental-*` negations are
        // booleans (`node --v8-options`, `node --help`).
        (Family::Node, o)
            if o.starts_with("--harmony-")
                || o.starts_with("--no-harmony")
                || o.starts_with("--no-experimental-") =>
        {
            FLAG
        }
        (
            Family::Node,
            "--test-reporter-destination"
            | "--test-name-pattern"
            | "--test-concurrency"
            | "--test-timeout"
            | "--test-shard"
            | "--inspect-port"
            | "--debug-port"
            | "--inspect-publish-uid",
        ) => VALUE,
        // A reporter is a module node loads unless it is one of node's own (`dot`).
        (Family::Node, "--test-reporter" | "--experimental-policy") => LOADS,
        (Family::Bun, "--bun" | "--silent" | "--smol") => FLAG,
        (
            Family::Deno,
            "--quiet" | "--no-prompt" | "--no-check" | "--unstable" | "--cached-only",
        ) => FLAG,
        (Family::Deno, o) if o.starts_with("--allow-") || o.starts_with("--deny-") => FLAG,
        (
            Family::Ruby,
            "--disable"
            | "--enable"
            | "--encoding"
            | "--external-encoding"
            | "--internal-encoding"
            | "--backtrace-limit"
            | "--dump",
        ) => VALUE,
        (Family::Ruby, "--jit" | "--yjit" | "--verbose") => FLAG,
        (Family::Ruby, o) if o.starts_with("--disable-") || o.starts_with("--enable-") => FLAG,
        (Family::Other, "--eval" | "--print") => CODE,
        (Family::Other, "--load") => LOADS,
        (
            Family::Other,
            "--vanilla" | "--no-environ" | "--no-site-file" | "--no-init-file" | "--no-save"
            | "--quiet" | "--slave" | "--silent" | "--verbose" | "--startup-file" | "--project"
            | "--color" | "--threads" | "--history-file" | "--default-packages",
        ) => FLAG,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(line: &str) -> Result<Runs, String> {
        let words: Vec<&str> = line.split(' ').collect();
        invocation(&words).map(|i| i.runs)
    }

    #[test]
    fn review11_the_script_is_found_past_every_option_or_the_line_is_refused() {
        assert_eq!(runs("bash -euo pipefail g"), Ok(Runs::Script(3)));
        assert_eq!(runs("sh -eo errexit g"), Ok(Runs::Script(3)));
        assert_eq!(runs("bash -eO extglob g"), Ok(Runs::Script(3)));
        assert_eq!(runs("bash +O extglob g"), Ok(Runs::Script(3)));
        assert_eq!(runs("sh -ce x"), Ok(Runs::Code(vec![2])));
        assert_eq!(runs("sh -s x"), Ok(Runs::Stdin));
        assert_eq!(runs("python3 -IW ignore g"), Ok(Runs::Script(3)));
        assert_eq!(
            runs("python3 -I -mgraders.check"),
            Ok(Runs::Module(2, "graders.check".into()))
        );
        assert_eq!(
            runs("python3 --check-hash-based-pycs always g"),
            Ok(Runs::Script(3))
        );
        assert_eq!(runs("node --title x g"), Ok(Runs::Script(3)));
        assert_eq!(runs("node -C development g"), Ok(Runs::Script(3)));
        assert_eq!(runs("node -e 0 -e x"), Ok(Runs::Code(vec![2, 4])));
        assert_eq!(runs("perl -lwe x"), Ok(Runs::Code(vec![2])));
        assert_eq!(runs("perl -0e x"), Ok(Runs::Code(vec![2])));
        assert_eq!(runs("perl -ne x f"), Ok(Runs::Code(vec![2])));
        assert_eq!(runs("perl -C g"), Ok(Runs::Script(2)));
        assert_eq!(runs("perl -C7 g"), Ok(Runs::Script(2)));
        assert_eq!(runs("sh /dev//stdin"), Ok(Runs::Stdin));
        assert_eq!(runs("sh - g"), Ok(Runs::Script(2)));
        assert_eq!(runs("sh -"), Ok(Runs::Stdin));
        assert_eq!(runs("python3 - g"), Ok(Runs::Stdin));
        assert_eq!(runs(". g"), Ok(Runs::Script(1)));
        assert_eq!(runs("source g"), Ok(Runs::Script(1)));
        let i = invocation(&["perl", "-I", "lib", "-MHelper", "g"]).unwrap();
        assert_eq!(i.loads, [(2, "lib".to_string())]);
        assert_eq!(i.runs, Runs::Script(4));
        let i = invocation(&["node", "-r", "./s.js", "--require=./t.js", "g"]).unwrap();
        assert_eq!(
            i.loads,
            [(2, "./s.js".to_string()), (3, "./t.js".to_string())]
        );
        for refused in [
            "bash -Z g",
            "node --frob g",
            "python3 -cexec(x)",
            "python3 -X pycache_prefix=cache g",
            "ruby -C graders g",
            "perl -S g",
            "perl -eprint",
        ] {
            assert!(runs(refused).is_err(), "{refused}");
        }
        assert_eq!(lexical("/dev//fd/./3"), "/dev/fd/3");
        assert_eq!(lexical("//proc/self/x/../fd/3"), "/proc/self/fd/3");
    }
}
