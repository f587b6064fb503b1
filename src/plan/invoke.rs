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

/// `python3.12` → `python`, `bash5` → `bash`: the name without a trailing version, and
/// without the architecture tail of a Debian multiarch name (review 13, b18:
/// `perl5.36-x86_64-linux-gnu` → `perl`).
pub(super) fn bare(name: &str) -> &str {
    let name = match name.find("-linux-gnu") {
        Some(at) => name[..at].rfind('-').map_or(name, |dash| &name[..dash]),
        None => name,
    };
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
    /// Option values that name a file or folder the interpreter loads: the word's index,
    /// the value (glued ones without their option: `-Ilib` gives `lib`), and whether it is
    /// a path for certain (`perl -I DIR`, `node --env-file F`, `bash --rcfile F`, or a
    /// value written `./…` or `/…`), not a library's name (`node -r ts-node/register`,
    /// `ruby -rjson`) that the interpreter looks up on its own search path.
    pub(super) loads: Vec<(usize, String, bool)>,
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
        // The shell spellings Debian and Ubuntu install too (review 13, b18).
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "fish" | "rbash"
        | "sh.distrib" | "bash-static" => Family::Shell,
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

/// Whether `c` names the running process in `/proc`: `self`, `thread-self` or a pid.
fn this_process(c: &str) -> bool {
    matches!(c, "self" | "thread-self") || (!c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()))
}

/// `p` read component by component, as the kernel walks it but for links: `//` and `.`
/// dropped, `..` taking off the component before it, `/proc/{self,thread-self,<pid>}/root`
/// read as `/` (that link is the root: `/proc/self/root/dev/fd/3` is `/dev/fd/3`, review
/// 13, b25) and `/proc/{self,thread-self,<pid>}/cwd` as `cwd` when it is known (review 13,
/// b15: the check's folder, not gate's). A relative `p` stays relative.
fn walk(p: &str, cwd: Option<&std::path::Path>) -> String {
    let absolute = p.starts_with('/');
    let mut parts: Vec<String> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| l != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            c => parts.push(c.to_string()),
        }
        let here = absolute && parts.len() == 3 && parts[0] == "proc" && this_process(&parts[1]);
        if here && parts[2] == "root" {
            parts.clear();
        } else if here
            && parts[2] == "cwd"
            && let Some(cwd) = cwd
        {
            let cwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
            parts = walk(&cwd.to_string_lossy(), None)
                .split('/')
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect();
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// `p` read as [`walk`] reads it, without a known working folder: lexical, with every
/// `/proc/…/root` read as `/` (review 13, b25).
pub(super) fn proc_root_stripped(p: &str) -> String {
    walk(p, None)
}

/// The one resolution of a path a `check:` line names (review 13, b01, b14, b15, b17,
/// b25), from `cwd`, the folder the check runs in: a relative path joined to `cwd`, then
/// read as [`walk`] reads it (`/proc/…/root` is `/`, `/proc/…/cwd` is `cwd`). No link is
/// followed and nothing is read. The plan's `env:` values are already in the word (the
/// lexer put them in).
pub(super) fn resolve(p: &str, cwd: &std::path::Path) -> std::path::PathBuf {
    let joined = if p.starts_with('/') {
        p.to_string()
    } else {
        let cwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        format!("{}/{p}", cwd.display())
    };
    walk(&joined, Some(cwd)).into()
}

/// Whether path `p` is the process's stdin (through `/proc/self/root` too, review 13).
pub(super) fn is_stdin(p: &str) -> bool {
    let p = proc_root_stripped(p);
    let parts: Vec<&str> = p.split('/').collect();
    p == "/dev/stdin"
        || p == "/dev/fd/0"
        || (parts.len() == 5
            && parts[1] == "proc"
            && this_process(parts[2])
            && parts[3] == "fd"
            && parts[4] == "0")
}

/// Whether path `p` names an open descriptor of the process (`/dev/fd/3`, through any
/// spelling: `/dev//fd/3`, `/proc/self/root/dev/fd/3`, `/proc/thread-self/fd/3`), whose
/// file is whatever the line opened on it (review 10, review 11 a09, review 13 b25).
pub(super) fn is_descriptor(p: &str) -> bool {
    let p = proc_root_stripped(p);
    let parts: Vec<&str> = p.split('/').collect();
    p.starts_with("/dev/fd/")
        || (parts.len() >= 5 && parts[1] == "proc" && this_process(parts[2]) && parts[3] == "fd")
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
        // perl reads switches up to its first operand, after `-e CODE` too (`perl -e '…'
        // -Ilib`: review 14, c16); only more code is followed there.
        if family == Family::Perl
            && !codes.is_empty()
            && (short || long)
            && !matches!(t, "-e" | "-E")
        {
            return Err(format!(
                "the switch `{t}` after perl's `-e` code (perl still reads it; put switches \
                 before `-e`)"
            ));
        }
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
        let mut values: Vec<(bool, char, String)> = Vec::new();
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
                            inv.loads
                                .push((i, v.to_string(), names_a_path(family, opt, v)));
                        }
                        python_x(family, opt, v)?;
                    }
                    None => values.push((loads, ' ', opt.to_string())),
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
                            values.push((loads, c, format!("-{c}")));
                        } else {
                            if loads {
                                let path = names_a_path(family, &format!("-{c}"), &rest);
                                inv.loads.push((i, rest.clone(), path));
                            }
                            if family == Family::Perl && matches!(c, 'M' | 'm') {
                                let dirs = perl_lib_dirs(&rest)?;
                                inv.loads.extend(dirs.into_iter().map(|d| (i, d, true)));
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
        for (loads, letter, opt) in values {
            let Some(&v) = args.get(i) else { break };
            if loads {
                inv.loads
                    .push((i, v.to_string(), names_a_path(family, &opt, v)));
            } else {
                inv.options.push(i);
            }
            if letter == 'X' {
                python_x(family, "-X", v)?;
            }
            if family == Family::Perl && matches!(letter, 'M' | 'm') {
                let dirs = perl_lib_dirs(v)?;
                inv.loads.extend(dirs.into_iter().map(|d| (i, d, true)));
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

/// Whether value `v` of loading option `opt` names a path for certain (see
/// [`Invocation::loads`]): always, but for the options that take a module's name (node's
/// `-r`, `--require`, `--import`, `--loader`, `--test-reporter` (a reporter's name), bun's
/// `--preload`, ruby's `-r`), where only a
/// value written `./…`, `../…` or `/…` is a path.
fn names_a_path(family: Family, opt: &str, v: &str) -> bool {
    let module = match family {
        Family::Node | Family::Deno | Family::Bun => matches!(
            opt,
            "-r" | "--require"
                | "--import"
                | "--loader"
                | "--experimental-loader"
                | "--preload"
                | "--test-reporter"
        ),
        Family::Ruby => opt == "-r",
        _ => false,
    };
    !module || v.starts_with('.') || v.starts_with('/')
}

/// The program files a command that is not an interpreter runs, named by an option
/// (review 13, b11, b24, b20): `awk -f F` (and `gawk`, `mawk`, `nawk`, `busybox awk`; gawk's
/// `-i`/`--include` and `-E`/`--exec` too), `sed -f F`, `jq -f F` / `--from-file F`, `make -f
/// F` / `--file` / `--makefile`; glued (`-fF`, `--file=F`) or as the next word. Each is the
/// word's index, the path (from the folder the command runs in) and whether it is a folder
/// whose makefile runs (`make -C DIR` without `-f`: the makefile is DIR's, and `-f` names
/// a file in DIR). Empty for any other command. Whatever its extension, such a file is a
/// grader as a script is.
pub(super) fn program_files(args: &[&str]) -> Vec<(usize, String, bool)> {
    let Some(&first) = args.first() else {
        return Vec::new();
    };
    let name = name_of(first);
    if name == "busybox" && args.len() > 1 {
        let mut inner = program_files(&args[1..]);
        inner.iter_mut().for_each(|f| f.0 += 1);
        return inner;
    }
    // (file letters, file long options, letters taking a value, long options taking a
    // value, letters whose value is only glued, whether options may follow operands).
    type Table = (
        &'static str,
        &'static [&'static str],
        &'static str,
        &'static [&'static str],
        &'static str,
        bool,
    );
    let table: Table = match bare(&name) {
        "awk" | "gawk" | "mawk" | "nawk" | "original-awk" => (
            "fiE",
            &["--file", "--include", "--exec"],
            "vFelW",
            &["--assign", "--field-separator", "--source", "--load"],
            "dDop",
            false,
        ),
        "sed" | "gsed" => (
            "f",
            &["--file"],
            "el",
            &["--expression", "--line-length"],
            "i",
            true,
        ),
        "jq" | "gojq" | "jaq" => (
            "",
            &["--from-file"],
            "L",
            &["--indent", "--library-path"],
            "",
            true,
        ),
        "make" | "gmake" | "remake" => (
            "f",
            &["--file", "--makefile"],
            "CIoW",
            &[
                "--directory",
                "--include-dir",
                "--old-file",
                "--assume-old",
                "--what-if",
                "--new-file",
                "--assume-new",
            ],
            "jlO",
            true,
        ),
        _ => return Vec::new(),
    };
    let (file_letters, file_longs, value_letters, value_longs, glued_only, anywhere) = table;
    let jq = matches!(bare(&name), "jq" | "gojq" | "jaq");
    let awk = matches!(
        bare(&name),
        "awk" | "gawk" | "mawk" | "nawk" | "original-awk"
    );
    let make = file_letters == "f" && value_letters == "CIoW";
    let mut files: Vec<(usize, String)> = Vec::new();
    let mut dirs: Vec<(usize, String)> = Vec::new();
    // jq's `-f` is a flag: the first operand is then the file its program is read from.
    let mut jq_from_file = false;
    let mut first_operand = None;
    let mut i = 1;
    while let Some(&t) = args.get(i) {
        if t == "--" {
            first_operand = first_operand.or(Some(i + 1).filter(|&k| k < args.len()));
            break;
        }
        if let Some(long) = t.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (opt, glued) = match long.split_once('=') {
                Some((o, v)) => (format!("--{o}"), Some(v)),
                None => (t.to_string(), None),
            };
            let jq_pair = jq
                && matches!(
                    opt.as_str(),
                    "--arg" | "--argjson" | "--slurpfile" | "--rawfile"
                );
            if jq && opt == "--from-file" && glued.is_none() {
                jq_from_file = true;
            } else if file_longs.contains(&opt.as_str()) || value_longs.contains(&opt.as_str()) {
                let (at, v) = match glued {
                    Some(v) => (i, Some(v.to_string())),
                    None => {
                        i += 1;
                        (i, args.get(i).map(|v| v.to_string()))
                    }
                };
                if let Some(v) = v {
                    if file_longs.contains(&opt.as_str()) {
                        files.push((at, v));
                    } else if make && opt == "--directory" {
                        dirs.push((at, v));
                    }
                }
            } else if jq_pair {
                i += 2;
            }
            i += 1;
            continue;
        }
        if t.len() > 1 && t.starts_with('-') {
            let cluster: Vec<char> = t[1..].chars().collect();
            for (j, c) in cluster.iter().enumerate() {
                let rest: String = cluster[j + 1..].iter().collect();
                if jq && *c == 'f' {
                    jq_from_file = true;
                    continue;
                }
                // mawk's `-W exec FILE` (any prefix of `exec`, glued or not): FILE is the
                // program, and the last option (review 17, e15).
                if awk && *c == 'W' {
                    let v = if rest.is_empty() {
                        i += 1;
                        args.get(i).map(|v| v.to_string())
                    } else {
                        Some(rest)
                    };
                    let v = v.unwrap_or_default();
                    let name = v.split_once('=').map_or(v.as_str(), |(n, _)| n);
                    if !name.is_empty() && "exec".starts_with(name) {
                        i += 1;
                        if let Some(f) = args.get(i) {
                            files.push((i, f.to_string()));
                        }
                    }
                    break;
                }
                if glued_only.contains(*c) {
                    break;
                }
                if !(file_letters.contains(*c) || value_letters.contains(*c)) {
                    continue;
                }
                let (at, v) = if rest.is_empty() {
                    i += 1;
                    (i, args.get(i).map(|v| v.to_string()))
                } else {
                    (i, Some(rest))
                };
                if let Some(v) = v {
                    if file_letters.contains(*c) {
                        files.push((at, v));
                    } else if make && *c == 'C' {
                        dirs.push((at, v));
                    }
                }
                break;
            }
            i += 1;
            continue;
        }
        first_operand = first_operand.or(Some(i));
        if !anywhere {
            break;
        }
        i += 1;
    }
    if jq_from_file && let Some(k) = first_operand {
        files.push((k, args[k].to_string()));
    }
    // `make -C a -C b`: each relative to the one before; the makefiles are read there.
    let dir = dirs.iter().fold(String::new(), |d, (_, v)| {
        if v.starts_with('/') || d.is_empty() {
            v.clone()
        } else {
            format!("{d}/{v}")
        }
    });
    let inside = |f: &str| {
        if dir.is_empty() || f.starts_with('/') {
            f.to_string()
        } else {
            format!("{dir}/{f}")
        }
    };
    let mut out: Vec<(usize, String, bool)> =
        files.iter().map(|(k, f)| (*k, inside(f), false)).collect();
    if out.is_empty()
        && let Some((k, _)) = dirs.last()
    {
        out.push((*k, dir.clone(), true));
    }
    out
}

/// The makefiles GNU make looks for in folder `dir`, in its order.
pub(super) fn makefiles(dir: &std::path::Path) -> [std::path::PathBuf; 3] {
    ["GNUmakefile", "makefile", "Makefile"].map(|m| dir.join(m))
}

/// node's own test reporters (`--test-reporter spec`), which name no package.
pub(super) const NODE_REPORTERS: [&str; 5] = ["spec", "tap", "dot", "junit", "lcov"];

/// `node --test-reporter NAME` (review 13, b09): one of node's own reporters, or a module
/// named by its path (loaded, so protected); a bare package name node would look up in
/// a `node_modules` a trial could create is refused.
fn node_reporter(v: Option<&str>) -> Result<(), String> {
    let Some(v) = v else { return Ok(()) };
    let builtin = NODE_REPORTERS.contains(&v);
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
        assert_eq!(i.loads, [(2, "lib".to_string(), true)]);
        assert_eq!(i.runs, Runs::Script(4));
        let i = invocation(&["node", "-r", "./s.js", "--require=./t.js", "g"]).unwrap();
        assert_eq!(
            i.loads,
            [
                (2, "./s.js".to_string(), true),
                (3, "./t.js".to_string(), true)
            ]
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
        assert_eq!(proc_root_stripped("/dev//fd/./3"), "/dev/fd/3");
        assert_eq!(
            proc_root_stripped("//proc/self/x/../fd/3"),
            "/proc/self/fd/3"
        );
    }

    #[test]
    fn review13_one_resolution_of_a_path_reads_proc_root_and_cwd() {
        let cwd = std::path::Path::new("/w/task");
        let r = |p: &str| resolve(p, cwd).display().to_string();
        assert_eq!(r("lib/x"), "/w/task/lib/x");
        assert_eq!(r("/proc/self/cwd/lib/x"), "/w/task/lib/x");
        assert_eq!(r("/proc/thread-self/cwd/../t2/x"), "/w/t2/x");
        assert_eq!(r("/proc/self/root/proc/self/cwd/x"), "/w/task/x");
        assert_eq!(r("/proc/1234/root/proc/self/root/etc/x"), "/etc/x");
        assert!(is_descriptor("/proc/self/root/dev/fd/3"));
        assert!(is_descriptor("/proc/thread-self/root/proc/self/fd/3"));
        assert!(is_descriptor("/proc/42/fd/3"));
        assert!(!is_descriptor("/proc/self/root/dev/null"));
        assert!(is_stdin("/proc/self/root/dev/stdin"));
        assert!(is_stdin("/proc/self/root/proc/thread-self/fd/0"));
        assert_eq!(bare("perl5.36-x86_64-linux-gnu"), "perl");
        assert_eq!(bare("python3.11-aarch64-linux-gnu"), "python");
        assert_eq!(bare("python3.12"), "python");
        for shell in ["rbash", "sh.distrib", "bash-static"] {
            assert_eq!(family(shell), Some(Family::Shell), "{shell}");
        }
        let files = |l: &str| {
            let words: Vec<&str> = l.split(' ').collect();
            program_files(&words)
        };
        assert_eq!(files("awk -flib/a x"), [(1, "lib/a".to_string(), false)]);
        assert_eq!(
            files("awk -F: -f lib/a x"),
            [(3, "lib/a".to_string(), false)]
        );
        assert_eq!(files("sed -nf lib/s x"), [(2, "lib/s".to_string(), false)]);
        assert_eq!(
            files("jq -e -f q.jq in.json"),
            [(3, "q.jq".to_string(), false)]
        );
        assert_eq!(files("jq --arg a b -e ."), []);
        assert_eq!(
            files("make -C lib -f mk t"),
            [(4, "lib/mk".to_string(), false)]
        );
        assert_eq!(files("make -s -Clib t"), [(2, "lib".to_string(), true)]);
        assert_eq!(files("busybox awk -f a"), [(3, "a".to_string(), false)]);
        assert_eq!(files("grep -f pats x"), []);
    }
}
