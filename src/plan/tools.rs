//! Tools whose own program text or options make them run a command or load a module gate
//! cannot follow (issue 29, review 14, groups 1, 2 and 5).
//!
//! A `check:` line's tool (awk, sed, make, git, tar, jq, prove, perl, python, node) can run
//! a command or load a file named inside its program text, its options or its config: awk's
//! `system(…)` and `"cmd" | getline`, sed's `e`, `make --eval`, `git -c alias.x=!cmd`,
//! `tar --to-command`, `jq -L lib` with `include`, `prove -l`, `perl -d`, `python -m
//! unittest discover` over a folder the trials write, `node -r NAME` resolved from a
//! parent's `node_modules`. The trial could write or create that command's script or that
//! module, and a wrong answer would pass. Rather than modelling each tool's language, gate
//! refuses such a line when the plan is loaded (conservative: an honest line that needs one
//! of these puts its logic in a script under `graders/` and names it).
//!
//! Python is read a little further: unittest's arguments as its `main.py` reads them
//! (discovery from the plan's own tests folder is accepted), and the folders Python puts
//! first on `sys.path` for the line ([`shadowed_module`]), where a folder the trials write
//! named like a module the grader imports would be imported in its place.

use std::path::{Path, PathBuf};

use super::invoke::{bare, is_python, name_of};
use super::words::{NODE_BUILTINS, module_names};

/// Why the command `words` (program first), run in `dir`, runs a command or loads a module
/// gate cannot follow, or `None`. The reason is one phrase (`awk's \`system\``), read by
/// [`super::grammar`] into its refusal.
///
/// `writable` says whether the trials can write a folder: node looks for a package in the
/// `node_modules` of every folder above the code that requires it, and one a trial creates
/// in front of the package's own is found first.
///
/// `beneath` says whether a folder the trials write lies at or beneath a folder: `python -m
/// unittest discover` imports every test module it finds beneath its start folder.
pub(super) fn problem(
    words: &[&str],
    dir: &Path,
    writable: &dyn Fn(&Path) -> bool,
    beneath: &dyn Fn(&Path) -> bool,
) -> Option<String> {
    let first = words.first()?;
    let name = name_of(first);
    if name == "busybox" && words.len() > 1 {
        return problem(&words[1..], dir, writable, beneath);
    }
    if let Some(why) = long_option_problem(bare(&name), words) {
        return Some(why);
    }
    match bare(&name) {
        "awk" | "gawk" | "mawk" | "nawk" | "original-awk" => awk(words, dir),
        "sed" | "gsed" => sed(words, dir),
        "make" | "gmake" | "remake" => make(words, dir),
        "git" => git(words),
        "tar" | "gtar" | "bsdtar" => tar(words),
        "jq" | "gojq" | "jaq" => jq(words, dir),
        "prove" => prove(words),
        "perl" => perl(words),
        "node" | "nodejs" | "bun" | "deno" => node(words, dir, writable),
        n if is_python(n) => python(words, dir, writable, beneath),
        "zip" => words[1..]
            .iter()
            .find(|t| **t == "-TT" || t.starts_with("--unzip-command"))
            .map(|t| format!("`zip {t}` (it runs a command to test the archive)")),
        "gcc" | "cc" | "clang" | "g++" | "c++" | "clang++" => words[1..]
            .iter()
            .find(|t| {
                t.starts_with("-wrapper")
                    || t.starts_with("-B")
                    || t.starts_with("-fplugin")
                    || t.starts_with("-specs")
                    || t.starts_with("--specs")
            })
            .map(|t| {
                format!("`{name} {t}` (the compiler runs a program or plugin it names or finds)")
            }),
        // Review 19: a runner's option that names the program it runs the tests with, or
        // the file it reads what to run from (`go test -exec F`, `tox -c F`, `just -f F`,
        // `cargo --config F`, `npm --script-shell F`): gate does not read the file, which
        // may lie where a trial writes.
        "go" | "tox" | "just" | "cargo" | "npm" | "pnpm" | "yarn" => runner_option(&name, words),
        "man" => words[1..]
            .iter()
            .find(|t| t.starts_with("-P") || t.starts_with("--pager") || t.starts_with("-H"))
            .map(|t| format!("`man {t}` (it runs the command it names)")),
        _ => None,
    }
}

/// The long options (without `--`) of the tools gate models, each in full. GNU getopt_long
/// and Perl's Getopt::Long take any unique prefix of a long option for the whole (`sed
/// --e=…` is `--expression=…`, `make --dir=…` is `--directory=…`, `prove --li` is `--lib`):
/// gate reads only these spellings and refuses any other long option (review 17, e03, e09,
/// e15, e17). Options that run a command or load a file are refused by each tool's reader.
fn long_options(tool: &str) -> Option<&'static [&'static str]> {
    Some(match tool {
        "sed" | "gsed" => &[
            "debug",
            "expression",
            "file",
            "follow-symlinks",
            "help",
            "in-place",
            "line-length",
            "null-data",
            "zero-terminated",
            "posix",
            "quiet",
            "silent",
            "regexp-extended",
            "sandbox",
            "separate",
            "unbuffered",
            "binary",
            "version",
        ],
        "make" | "gmake" | "remake" => &super::words::MAKE_LONG,
        "awk" | "gawk" | "mawk" | "nawk" | "original-awk" => &[
            "assign",
            "bignum",
            "characters-as-bytes",
            "copyright",
            "csv",
            "dump-variables",
            "exec",
            "field-separator",
            "file",
            "gen-pot",
            "help",
            "include",
            "lint",
            "load",
            "no-optimize",
            "non-decimal-data",
            "optimize",
            "posix",
            "re-interval",
            "sandbox",
            "source",
            "traditional",
            "use-lc-numeric",
            "usage",
            "version",
        ],
        "jq" | "gojq" | "jaq" => &[
            "arg",
            "argfile",
            "argjson",
            "args",
            "ascii-output",
            "binary",
            "build-configuration",
            "color-output",
            "compact-output",
            "exit-status",
            "from-file",
            "help",
            "indent",
            "join-output",
            "jsonargs",
            "library-path",
            "monochrome-output",
            "null-input",
            "nul-output",
            "raw-input",
            "raw-output",
            "raw-output0",
            "rawfile",
            "seq",
            "slurp",
            "slurpfile",
            "sort-keys",
            "stream",
            "stream-errors",
            "tab",
            "unbuffered",
            "version",
        ],
        "prove" => &[
            "archive",
            "blib",
            "color",
            "comments",
            "count",
            "directives",
            "dry",
            "exec",
            "ext",
            "failures",
            "formatter",
            "harness",
            "help",
            "ignore-exit",
            "jobs",
            "lib",
            "man",
            "merge",
            "nocolor",
            "nocount",
            "norc",
            "normalize",
            "parse",
            "QUIET",
            "quiet",
            "rc",
            "really-quiet",
            "recurse",
            "reverse",
            "rules",
            "shuffle",
            "source",
            "state",
            "tapversion",
            "timer",
            "trap",
            "verbose",
            "version",
        ],
        "tar" | "gtar" | "bsdtar" => TAR_LONG,
        _ => return None,
    })
}

/// GNU tar's long options (`tar --help`), each in full.
const TAR_LONG: &[&str] = &[
    "absolute-names",
    "acls",
    "add-file",
    "after-date",
    "anchored",
    "append",
    "atime-preserve",
    "auto-compress",
    "backup",
    "block-number",
    "blocking-factor",
    "bzip2",
    "catenate",
    "check-device",
    "check-links",
    "checkpoint",
    "checkpoint-action",
    "clamp-mtime",
    "compare",
    "compress",
    "concatenate",
    "confirmation",
    "create",
    "delay-directory-restore",
    "delete",
    "dereference",
    "diff",
    "directory",
    "exclude",
    "exclude-backups",
    "exclude-caches",
    "exclude-caches-all",
    "exclude-caches-under",
    "exclude-from",
    "exclude-ignore",
    "exclude-ignore-recursive",
    "exclude-tag",
    "exclude-tag-all",
    "exclude-tag-under",
    "exclude-vcs",
    "exclude-vcs-ignores",
    "extract",
    "file",
    "files-from",
    "force-local",
    "format",
    "full-time",
    "get",
    "group",
    "group-map",
    "gunzip",
    "gzip",
    "hard-dereference",
    "help",
    "hole-detection",
    "ignore-case",
    "ignore-command-error",
    "ignore-failed-read",
    "ignore-zeros",
    "incremental",
    "index-file",
    "info-script",
    "interactive",
    "keep-directory-symlink",
    "keep-newer-files",
    "keep-old-files",
    "label",
    "level",
    "list",
    "listed-incremental",
    "lzip",
    "lzma",
    "lzop",
    "mode",
    "mtime",
    "multi-volume",
    "new-volume-script",
    "newer",
    "newer-mtime",
    "no-acls",
    "no-anchored",
    "no-auto-compress",
    "no-check-device",
    "no-delay-directory-restore",
    "no-ignore-case",
    "no-ignore-command-error",
    "no-null",
    "no-overwrite-dir",
    "no-quote-chars",
    "no-recursion",
    "no-same-owner",
    "no-same-permissions",
    "no-seek",
    "no-selinux",
    "no-unquote",
    "no-verbatim-files-from",
    "no-wildcards",
    "no-wildcards-match-slash",
    "no-xattrs",
    "null",
    "numeric-owner",
    "occurrence",
    "old-archive",
    "one-file-system",
    "one-top-level",
    "overwrite",
    "overwrite-dir",
    "owner",
    "owner-map",
    "pax-option",
    "portability",
    "posix",
    "preserve-order",
    "preserve-permissions",
    "quote-chars",
    "quoting-style",
    "read-full-records",
    "record-size",
    "recursion",
    "recursive-unlink",
    "remove-files",
    "restrict",
    "rmt-command",
    "rsh-command",
    "same-order",
    "same-owner",
    "same-permissions",
    "seek",
    "selinux",
    "show-defaults",
    "show-omitted-dirs",
    "show-snapshot-field-ranges",
    "show-stored-names",
    "show-transformed-names",
    "skip-old-files",
    "sort",
    "sparse",
    "sparse-version",
    "starting-file",
    "strip-components",
    "suffix",
    "tape-length",
    "test-label",
    "to-command",
    "to-stdout",
    "totals",
    "touch",
    "transform",
    "uncompress",
    "ungzip",
    "unlink-first",
    "unquote",
    "update",
    "usage",
    "use-compress-program",
    "utc",
    "verbatim-files-from",
    "verbose",
    "verify",
    "version",
    "volno-file",
    "warning",
    "wildcards",
    "wildcards-match-slash",
    "xattrs",
    "xattrs-exclude",
    "xattrs-include",
    "xform",
    "xz",
    "zstd",
];

/// A long option of `words` (a `tool` of [`long_options`]) that is not one of the tool's
/// long options in full, up to a `--`: the tool may read it as another option (a unique
/// prefix) or take the next word as its value.
fn long_option_problem(tool: &str, words: &[&str]) -> Option<String> {
    let known = long_options(tool)?;
    for t in words.iter().skip(1) {
        if *t == "--" {
            break;
        }
        let Some(long) = t.strip_prefix("--") else {
            continue;
        };
        let name = long.split_once('=').map_or(long, |(n, _)| n);
        if known.contains(&name) {
            continue;
        }
        let of: Vec<&&str> = known.iter().filter(|k| k.starts_with(name)).collect();
        let read_as = match of.as_slice() {
            [one] => format!(", which {tool} reads as `--{one}`"),
            _ => String::new(),
        };
        return Some(format!(
            "the option `--{name}` of `{tool}`{read_as} (gate reads a tool's long options \
             written in full only: write the option in full)"
        ));
    }
    None
}

/// The value of option `t` when it is `--long=V`, `-xV` (letter `x` glued), or the next word.
fn value_of<'a>(words: &[&'a str], i: usize, long: &str) -> Option<(&'a str, usize)> {
    let t = words[i];
    if let Some(v) = t.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
        return Some((v, i));
    }
    (t == long).then(|| words.get(i + 1).map(|v| (*v, i + 1)))?
}

/// The file's text, if it can be read (a missing file is refused elsewhere).
fn read(dir: &Path, path: &str) -> Option<String> {
    std::fs::read_to_string(super::invoke::resolve(path, dir)).ok()
}

/// awk: the program texts (inline, `--source`/`-e`, and the content of `-f` files) may not
/// run a command: `system(…)`, a pipe to or from a command (`"cmd" | getline`, `print … |
/// "cmd"`, `|&`). Review 14, c02, c18: the command's text need not be one literal.
fn awk(words: &[&str], dir: &Path) -> Option<String> {
    let mut texts = Vec::new();
    let mut from_file = false;
    let mut i = 1;
    while i < words.len() {
        let t = words[i];
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (opt, glued) = long
                .split_once('=')
                .map_or((long, None), |(o, v)| (o, Some(v)));
            if opt == "load" {
                return Some(format!(
                    "`awk {t}` (gawk loads an extension from a search path)"
                ));
            }
            let takes = matches!(
                opt,
                "file" | "include" | "exec" | "source" | "assign" | "field-separator"
            );
            let v = match glued {
                Some(v) => Some(v),
                None if takes => {
                    i += 1;
                    words.get(i).copied()
                }
                None => None,
            };
            if let Some(v) = v {
                match opt {
                    "source" => texts.push(v.to_string()),
                    "file" | "include" | "exec" => {
                        from_file = true;
                        texts.extend(read(dir, v));
                    }
                    _ => {}
                }
            }
            i += 1;
            continue;
        }
        let letter = t.chars().nth(1).unwrap_or(' ');
        let glued = &t[1 + letter.len_utf8()..];
        if letter == 'l' {
            return Some(format!(
                "`awk {t}` (gawk loads an extension from a search path)"
            ));
        }
        if letter == 'W' {
            // mawk's and gawk's `-W NAME`: mawk takes any prefix of `exec` for `-W exec
            // FILE`, which reads the program from FILE (review 17, e15).
            let v = if glued.is_empty() {
                i += 1;
                words.get(i).copied()
            } else {
                Some(glued)
            };
            let w = v.unwrap_or_default();
            let name = w.split_once('=').map_or(w, |(n, _)| n);
            if !name.is_empty() && "exec".starts_with(name) {
                from_file = true;
                i += 1;
                texts.extend(words.get(i).and_then(|f| read(dir, f)));
                i += 1;
                break;
            }
            if !AWK_W.contains(&name) {
                return Some(format!(
                    "`awk -W {w}` (gate reads only `-W` {}, written in full)",
                    AWK_W.join(", ")
                ));
            }
            i += 1;
            continue;
        }
        if "fiEevF".contains(letter) {
            let v = if glued.is_empty() {
                i += 1;
                words.get(i).copied()
            } else {
                Some(glued)
            };
            if let Some(v) = v {
                match letter {
                    'e' => texts.push(v.to_string()),
                    'f' | 'i' | 'E' => {
                        from_file = true;
                        texts.extend(read(dir, v));
                    }
                    _ => {}
                }
            }
        }
        i += 1;
    }
    if !from_file && let Some(p) = words.get(i) {
        texts.push(p.to_string());
    }
    texts.iter().find_map(|x| awk_runs(x))
}

/// The `-W` words of mawk and gawk gate reads (none names a file or a command).
const AWK_W: &[&str] = &[
    "version",
    "dump",
    "help",
    "usage",
    "interactive",
    "posix_space",
    "random",
    "sprintf",
    "posix",
    "traditional",
    "lint",
    "sandbox",
    "re-interval",
    "characters-as-bytes",
    "use-lc-numeric",
];

/// What in awk program `text` runs a command, or `None`.
fn awk_runs(text: &str) -> Option<String> {
    let idents = |s: &str, word: &str| {
        s.match_indices(word).any(|(at, _)| {
            let before = s[..at].chars().next_back();
            let after = s[at + word.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    };
    if idents(text, "system") {
        return Some("awk's `system`".into());
    }
    if text.contains("|&") {
        return Some("awk's `|&` (a two-way pipe to a command)".into());
    }
    // gawk's `@include "F"` / `@load "F"` read a file from a search path that starts
    // with the folder the check runs in (review 17, e20).
    if text.contains("@include") || text.contains("@load") {
        return Some("gawk's `@include`/`@load` (a file from a search path)".into());
    }
    awk_pipe(text)
}

/// A `|` that is not `||` outside awk program `text`'s string literals, regular
/// expressions and comments: a pipe from a command into `getline`, or from `print` into a
/// command. Strings are skipped and a backslash-newline is a continuation, as awk reads
/// them (review 17, e03, e17: `print "}/" | "sh F"`); a `/` opens a regular expression
/// unless it follows an operand (then it divides). A program gate cannot read to its end
/// is refused.
fn awk_pipe(text: &str) -> Option<String> {
    let pipe = || Some("awk's `|` (a pipe to or from a command)".to_string());
    let unreadable =
        || Some("an awk program gate cannot read (an unclosed string or regex)".to_string());
    let c: Vec<char> = text.chars().collect();
    // Whether the last token was an operand (a `/` after it divides).
    let mut operand = false;
    let mut k = 0;
    while k < c.len() {
        let x = c[k];
        match x {
            '\\' => {
                // A continuation (`\` newline) or a stray backslash.
                k += 2;
                continue;
            }
            '#' => {
                while k < c.len() && c[k] != '\n' {
                    k += 1;
                }
                continue;
            }
            '"' => {
                k += 1;
                while k < c.len() && c[k] != '"' {
                    if c[k] == '\n' {
                        return unreadable();
                    }
                    k += if c[k] == '\\' { 2 } else { 1 };
                }
                if k >= c.len() {
                    return unreadable();
                }
                operand = true;
                k += 1;
                continue;
            }
            '/' if !operand => {
                k += 1;
                let mut bracket = false;
                while k < c.len() && (bracket || c[k] != '/') {
                    match c[k] {
                        '\n' => return unreadable(),
                        '\\' => k += 1,
                        '[' => bracket = true,
                        ']' => bracket = false,
                        _ => {}
                    }
                    k += 1;
                }
                if k >= c.len() {
                    return unreadable();
                }
                operand = true;
                k += 1;
                continue;
            }
            '|' => {
                if c.get(k + 1) == Some(&'|') {
                    operand = false;
                    k += 2;
                    continue;
                }
                if c.get(k + 1) == Some(&'&') {
                    return Some("awk's `|&` (a two-way pipe to a command)".into());
                }
                return pipe();
            }
            _ if x.is_alphanumeric() || x == '_' => {
                let from = k;
                while k < c.len() && (c[k].is_alphanumeric() || c[k] == '_') {
                    k += 1;
                }
                let word: String = c[from..k].iter().collect();
                operand = !matches!(
                    word.as_str(),
                    "print" | "printf" | "return" | "in" | "getline" | "case" | "do" | "else"
                );
                continue;
            }
            ')' | ']' | '$' => operand = true,
            '+' | '-' if c.get(k + 1) == Some(&x) => {
                // `x++ / 2` divides; a prefix `++` is followed by an operand anyway.
                operand = true;
                k += 2;
                continue;
            }
            _ if x.is_whitespace() && x != '\n' => {}
            _ => operand = false,
        }
        k += 1;
    }
    None
}

/// sed: a script (inline, `-e`, `--expression`, or a `-f` file's content) with the `e`
/// command or the `e` flag of `s` runs a command (review 14, c03, c28).
fn sed(words: &[&str], dir: &Path) -> Option<String> {
    let mut scripts = Vec::new();
    let mut named = false;
    let mut operand_script = None;
    let mut i = 1;
    let mut options = true;
    while i < words.len() {
        let t = words[i];
        if options && t == "--" {
            options = false;
        } else if options && t.starts_with("--") {
            // `--line-length N` (review 17, e17): its value is no script.
            if t == "--line-length" {
                i += 1;
            }
            for (long, file) in [("--expression", false), ("--file", true)] {
                if let Some((v, at)) = value_of(words, i, long) {
                    named = true;
                    if file {
                        scripts.extend(read(dir, v));
                    } else {
                        scripts.push(v.to_string());
                    }
                    i = at;
                }
            }
        } else if options && t.starts_with('-') && t.len() > 1 {
            // A cluster (`-ne`, `-nf F`, `-es/x/y/e`, `-nl 5`): `e`, `f` and `l` take the
            // rest or the next word (review 17, e17: `-l N`); `i` a glued value only.
            let chars: Vec<char> = t[1..].chars().collect();
            for (j, c) in chars.iter().enumerate() {
                if *c == 'l' {
                    i += usize::from(j + 1 == chars.len());
                    break;
                }
                if *c == 'e' || *c == 'f' {
                    let rest: String = chars[j + 1..].iter().collect();
                    let v = if rest.is_empty() {
                        i += 1;
                        words.get(i).map(|s| s.to_string())
                    } else {
                        Some(rest)
                    };
                    named = true;
                    if let Some(v) = v {
                        if *c == 'f' {
                            scripts.extend(read(dir, &v));
                        } else {
                            scripts.push(v);
                        }
                    }
                    break;
                }
                if *c == 'i' {
                    break;
                }
            }
        } else if operand_script.is_none() {
            operand_script = Some(t.to_string());
        }
        i += 1;
    }
    if !named {
        scripts.extend(operand_script);
    }
    scripts.iter().find_map(|s| sed_runs(s))
}

/// What in sed script `s` runs a command (the `e` command, the `e` flag of `s`), or `None`;
/// a script gate cannot read to its end is refused as well.
fn sed_runs(s: &str) -> Option<String> {
    let c: Vec<char> = s.chars().collect();
    let unreadable = || Some("a sed script gate cannot read".to_string());
    // The end of a delimited field that starts after `c[from - 1]`, the delimiter `d`.
    let field = |from: usize, d: char| -> Option<usize> {
        let mut k = from;
        while k < c.len() {
            if c[k] == '\\' {
                k += 2;
                continue;
            }
            if c[k] == '\n' && d != '\n' {
                return None;
            }
            if c[k] == d {
                return Some(k);
            }
            k += 1;
        }
        None
    };
    let to_line_end = |k: usize| {
        c[k..]
            .iter()
            .position(|&x| x == '\n')
            .map_or(c.len(), |p| k + p)
    };
    let mut k = 0;
    while k < c.len() {
        let x = c[k];
        if x.is_whitespace()
            || matches!(x, ';' | '{' | '}' | '!' | ',' | '$' | '~' | '+')
            || x.is_ascii_digit()
        {
            k += 1;
            continue;
        }
        if x == '#' {
            k = to_line_end(k);
            continue;
        }
        // An address: `/re/` or `\cREc`, with `I`/`M` modifiers.
        if x == '/' || x == '\\' {
            let (d, from) = if x == '/' {
                ('/', k + 1)
            } else {
                (*c.get(k + 1)?, k + 2)
            };
            let Some(end) = field(from, d) else {
                return unreadable();
            };
            k = end + 1;
            while k < c.len() && matches!(c[k], 'I' | 'M') {
                k += 1;
            }
            continue;
        }
        match x {
            'e' => return Some("sed's `e` command".into()),
            's' | 'y' => {
                let Some(&d) = c.get(k + 1) else {
                    return unreadable();
                };
                if d == '\\' || d == '\n' {
                    return unreadable();
                }
                let Some(mid) = field(k + 2, d) else {
                    return unreadable();
                };
                let Some(end) = field(mid + 1, d) else {
                    return unreadable();
                };
                k = end + 1;
                if x == 's' {
                    while k < c.len() && !matches!(c[k], ';' | '\n' | '}') {
                        match c[k] {
                            'e' => return Some("the `e` flag of sed's `s`".into()),
                            // A comment after the flags (review 17, e10).
                            '#' => k = to_line_end(k),
                            // `w FILE` takes the rest of the line.
                            'w' => k = to_line_end(k),
                            _ => k += 1,
                        }
                    }
                }
            }
            // Text and file names to the end of the line.
            'a' | 'i' | 'c' | 'r' | 'R' | 'w' | 'W' => k = to_line_end(k),
            // Labels end at `;` or the line's end.
            ':' | 'b' | 't' | 'T' => {
                k += 1;
                while k < c.len() && !matches!(c[k], ';' | '\n') {
                    k += 1;
                }
            }
            _ if x.is_ascii_alphabetic() || x == '=' => k += 1,
            _ => return unreadable(),
        }
    }
    None
}

/// make: `--eval`/`-E` run the text they give as a makefile, `-I`/`--include-dir` add a
/// folder makefiles are included from, and a makefile that includes another reads it
/// from a folder gate does not protect (review 14, c02, c11).
fn make(words: &[&str], dir: &Path) -> Option<String> {
    let mut files = Vec::new();
    let mut at = dir.to_path_buf();
    let mut i = 1;
    while i < words.len() {
        let t = words[i];
        if t.starts_with("--eval") {
            return Some("`make --eval` (its text is a makefile gate does not read)".into());
        }
        if t.starts_with("--include-dir") {
            return Some("`make --include-dir` (a folder makefiles are included from)".into());
        }
        for long in ["--file", "--makefile"] {
            if let Some((v, k)) = value_of(words, i, long) {
                files.push(v.to_string());
                i = k;
            }
        }
        if let Some((v, k)) = value_of(words, i, "--directory") {
            at = super::invoke::resolve(v, &at);
            i = k;
        }
        if t.starts_with('-') && !t.starts_with("--") {
            for (j, c) in t[1..].char_indices() {
                let rest = &t[1 + j + c.len_utf8()..];
                match c {
                    'E' => {
                        return Some(
                            "`make -E` (its text is a makefile gate does not read)".into(),
                        );
                    }
                    'I' => {
                        return Some("`make -I` (a folder makefiles are included from)".into());
                    }
                    'f' | 'C' | 'o' | 'W' => {
                        let v = if rest.is_empty() {
                            i += 1;
                            words.get(i).map(|s| s.to_string())
                        } else {
                            Some(rest.to_string())
                        };
                        if let Some(v) = v {
                            if c == 'f' {
                                files.push(v);
                            } else if c == 'C' {
                                at = super::invoke::resolve(&v, &at);
                            }
                        }
                        break;
                    }
                    'j' | 'l' | 'O' => break,
                    _ => {}
                }
            }
        }
        i += 1;
    }
    let paths: Vec<std::path::PathBuf> = if files.is_empty() {
        super::invoke::makefiles(&at).to_vec()
    } else {
        files
            .iter()
            .map(|f| super::invoke::resolve(f, &at))
            .collect()
    };
    for p in paths {
        // A regular file only (a FIFO would hold the load up: review 83, l01, l02), read
        // as far as make's reading reads it; bytes that are not UTF-8 do not hide a line.
        let Some(text) = super::makefile::read_text(&p) else {
            continue;
        };
        let includes = text.lines().any(|l| {
            let l = l.trim_start();
            ["include", "-include", "sinclude"].iter().any(|k| {
                l.strip_prefix(k)
                    .is_some_and(|r| r.starts_with([' ', '\t']))
            })
        });
        if includes {
            return Some(format!(
                "a makefile that includes another (`{}`: make reads it from a folder gate does \
                 not protect)",
                p.display()
            ));
        }
    }
    None
}

/// Review 19, 20: a runner's option that names the program it runs the tests with, or the
/// file it reads what to run from (`go test -exec F`, `tox -c F`, `just -f F`, `cargo
/// --config F`, `npm --script-shell F`): gate does not read the file, which may lie where a
/// trial writes. Long options by any unique prefix for the runners that take one (npm's
/// nopt, tox's argparse, just: `--scr=`, `--con=`, `--justf=`); go reads `-x` and `--x`
/// alike.
fn runner_option(name: &str, words: &[&str]) -> Option<String> {
    let (long, short): (&[&str], &[&str]) = match bare(name) {
        "go" => (
            &[
                "exec", "toolexec", "vettool", "overlay", "modfile", "pgo", "C",
            ],
            &[],
        ),
        "tox" => (&["conf", "root", "workdir", "installpkg"], &["c"]),
        "just" => (
            &[
                "justfile",
                "working-directory",
                "shell",
                "dotenv-path",
                "dotenv-filename",
                "command",
                "global-justfile",
            ],
            &["f", "d", "E", "c", "g"],
        ),
        "cargo" => (&["config"], &["Z"]),
        _ => (
            &[
                "script-shell",
                "userconfig",
                "globalconfig",
                "prefix",
                "dir",
                "cwd",
                "node-options",
                "rc-filename",
                "shell-emulator",
            ],
            &["C"],
        ),
    };
    let prefixes = !matches!(bare(name), "go" | "cargo");
    let bad = words[1..].iter().find(|t| {
        let (dashes, rest) = match t.strip_prefix("--") {
            Some(r) => (2, r),
            None => (1, t.strip_prefix('-').unwrap_or("")),
        };
        if rest.is_empty() || t.len() == rest.len() {
            return false;
        }
        let opt = rest.split_once('=').map_or(rest, |(o, _)| o);
        let long_hit = (dashes == 2 || bare(name) == "go")
            && long
                .iter()
                .any(|l| *l == opt || (prefixes && opt.len() >= 2 && l.starts_with(opt)));
        // A short option, alone or with its value glued (`-fjustfile`, `-C..`).
        let short_hit = dashes == 1 && short.iter().any(|o| rest.starts_with(o));
        long_hit || short_hit
    })?;
    Some(format!(
        "`{name} {bad}` (it names the program the tests run with or a file the runner reads \
         what to run from; run the runner from a grader script in a folder the trials do not \
         write)"
    ))
}

/// The folder make runs in, unless the line says `-B` (`--always-make`): make calls a
/// target up to date when a file of its name is newer than its prerequisites, and runs
/// nothing, so a trial's `touch check` (or `touch test`, a prerequisite of a `.PHONY`
/// goal; or the goal `.DEFAULT_GOAL` names) passes `make check` (reviews 20 and 21: a
/// reading of the makefile's `.PHONY` lines missed prerequisites, `.DEFAULT_GOAL` and
/// conditionals; `-B` leaves nothing to judge).
pub(super) fn make_folder_without_always(words: &[&str], dir: &Path) -> Option<std::path::PathBuf> {
    let mut at = dir.to_path_buf();
    let mut i = 1;
    while let Some(t) = words.get(i) {
        i += 1;
        if let Some(long) = t.strip_prefix("--") {
            let (name, glued) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            // getopt_long takes a unique prefix (`--always`).
            if name.len() >= 2 && "always-make".starts_with(name) {
                return None;
            }
            let valued = super::words::MAKE_VALUED_LONG;
            if valued.contains(&name) {
                let v = glued.map(str::to_string).or_else(|| {
                    i += 1;
                    words.get(i - 1).map(|s| s.to_string())
                });
                if let ("directory", Some(v)) = (name, v) {
                    at = super::invoke::resolve(&v, &at);
                }
            }
            continue;
        }
        let Some(flags) = t.strip_prefix('-') else {
            continue;
        };
        for (j, c) in flags.char_indices() {
            let rest = &flags[j + c.len_utf8()..];
            match c {
                'B' => return None,
                'f' | 'C' | 'I' | 'o' | 'W' => {
                    let v = if rest.is_empty() {
                        i += 1;
                        words.get(i - 1).map(|s| s.to_string())
                    } else {
                        Some(rest.to_string())
                    };
                    if let ('C', Some(v)) = (c, v) {
                        at = super::invoke::resolve(&v, &at);
                    }
                    break;
                }
                'j' | 'l' | 'O' => break,
                _ => {}
            }
        }
    }
    Some(at)
}

/// git: `-c NAME=VALUE` and `--config-env` set config whose values run commands (`alias.x=!…`,
/// `core.pager`, `diff.external`, `*.textconv`, …) (review 14, c02); `--exec-path=DIR` names
/// the folder its subcommands run from. Review 17: the global options before the
/// subcommand are read past the values of `-C`, `--git-dir`, … (e19: `git -C . -c …`), and
/// `-c` is accepted for the keys [`GIT_QUIET_KEYS`], which run nothing (e10).
fn git(words: &[&str]) -> Option<String> {
    let mut i = 1;
    while let Some(t) = words.get(i) {
        if !t.starts_with('-') {
            break;
        }
        if *t == "-c" {
            let v = words.get(i + 1).copied().unwrap_or_default();
            let key = v.split_once('=').map_or(v, |(k, _)| k).to_ascii_lowercase();
            let quiet = GIT_QUIET_KEYS.iter().any(|q| match q.strip_suffix('*') {
                Some(section) => key.starts_with(section),
                None => key == *q,
            });
            if !quiet {
                return Some(format!(
                    "`git -c` with `{v}` (a config value may run a command or include a file; \
                     gate reads only `-c` with {})",
                    GIT_QUIET_KEYS.join(", ")
                ));
            }
            i += 2;
            continue;
        }
        if t.starts_with("-c") || t.starts_with("--config-env") {
            return Some(format!("`git {t}` (a config value may run a command)"));
        }
        // Review 19 (a13): a repository the trial could create, named by path.
        if t.starts_with("--git-dir") || t.starts_with("--work-tree") {
            return Some(format!("`git {t}` (name the repository with `cd`)"));
        }
        if t.starts_with("--exec-path=") {
            return Some("`git --exec-path=DIR` (the folder git runs its commands from)".into());
        }
        // Global options whose value is the next word.
        let valued = matches!(
            *t,
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" | "--attr-source"
        );
        i += 1 + usize::from(valued);
    }
    // Review 19 (a05): sub-commands that run a command an option names (`ls-remote
    // --upload-pack=CMD`, `difftool -x CMD`, `archive --remote=. --exec=CMD`, `grep -O CMD`)
    // — only those that read the repository and print are followed.
    let sub = words.get(i)?;
    if !GIT_READERS.contains(sub) {
        return Some(format!(
            "`git {sub}`, a git command gate does not read (some run a command an option \
             names: `ls-remote --upload-pack`, `difftool -x`, `archive --exec`); gate reads \
             {}",
            GIT_READERS.join(", ")
        ));
    }
    // Review 20, 20: what `status` and `ls-files --exclude-standard` list leaves out what
    // a `.gitignore` of the work tree names, which a trial writes (`*` hides every stray
    // file, itself too); `git status --ignored` lists those as well.
    let after = &words[i + 1..];
    // `--untracked-files=no` (`-uno`) leaves untracked files out altogether, which no
    // `.gitignore` changes (review 21, 06: with `--ignored`, gate's own `gate-out/` shows).
    if *sub == "status"
        && !after.iter().any(|t| {
            *t == "--ignored"
                || (t.starts_with("--ignored=") && *t != "--ignored=no")
                || matches!(*t, "-uno" | "--untracked-files=no")
        })
    {
        return Some(
            "`git status` without `--ignored` or `--untracked-files=no` (it leaves out the \
             files a `.gitignore` a trial writes names: add `-uno` to see tracked changes \
             only, or `--ignored`, which lists gate's own `gate-out/` too)"
                .into(),
        );
    }
    if *sub == "check-ignore"
        || (*sub == "ls-files"
            && after
                .iter()
                .any(|t| t.starts_with("--exclude-") || t.starts_with("-X")))
    {
        return Some(format!(
            "`git {sub}` reading what a `.gitignore` of the work tree excludes (a trial writes \
             it)"
        ));
    }
    if let Some(t) = words[i + 1..]
        .iter()
        .find(|t| t.starts_with("-O") || t.starts_with("--open") || t.starts_with("--ext"))
    {
        return Some(format!(
            "`git {sub} {t}` (a pager or an external diff is a command git runs)"
        ));
    }
    None
}

/// The git sub-commands a check line may run: they read the repository and print.
const GIT_READERS: &[&str] = &[
    "diff",
    "status",
    "log",
    "show",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "cat-file",
    "diff-index",
    "diff-files",
    "diff-tree",
    "merge-base",
    "describe",
    "rev-list",
    "hash-object",
    "check-ignore",
    "show-ref",
    "for-each-ref",
    "grep",
    "blame",
    "shortlog",
];

/// Config keys (lowercase; `section.*` a whole section) whose values run no command and
/// name no file git reads: `git -c KEY=VALUE` with one of them is accepted.
const GIT_QUIET_KEYS: &[&str] = &[
    "color.*",
    "core.quotepath",
    "core.autocrlf",
    "core.safecrlf",
    "core.eol",
    "core.filemode",
    "core.ignorecase",
    "core.abbrev",
    "core.whitespace",
    "diff.noprefix",
    "diff.renames",
    "diff.algorithm",
    "diff.context",
    "diff.indentheuristic",
    "diff.mnemonicprefix",
    "diff.relative",
    "diff.suppressblankempty",
    "user.name",
    "user.email",
    "safe.directory",
    "advice.*",
    "init.defaultbranch",
    "status.showuntrackedfiles",
    "status.relativepaths",
];

/// tar: options that run a command (review 14, c17).
fn tar(words: &[&str]) -> Option<String> {
    const LONGS: &[&str] = &[
        "--to-command",
        "--use-compress-program",
        "--checkpoint-action",
        "--info-script",
        "--new-volume-script",
        "--rsh-command",
        "--rmt-command",
    ];
    for (k, t) in words.iter().enumerate().skip(1) {
        if let Some(l) = LONGS.iter().find(|l| t.starts_with(**l)) {
            return Some(format!("`tar {l}` (it runs a command)"));
        }
        // `-I PROG`, `-F SCRIPT`, also in a cluster or tar's first word without a dash.
        let cluster = t.strip_prefix('-').filter(|r| !r.starts_with('-'));
        let cluster = cluster.or((k == 1 && !t.starts_with('-')).then_some(*t));
        if cluster.is_some_and(|c| c.contains(['I', 'F'])) {
            return Some(format!("`tar {t}` (`-I`/`-F` run a command)"));
        }
    }
    None
}

/// jq: `-L`/`--library-path` and `include`/`import` load modules from a folder a trial
/// could write (review 14, c11). `include "…"` / `import "…"` are refused in any operand
/// word (review 17, e17: `--argfile x F` takes two values, so the program is not always
/// the first operand), but a field or a string of that name (`.include`, `has("include")`)
/// is data (review 17, e10).
fn jq(words: &[&str], dir: &Path) -> Option<String> {
    let mut texts = Vec::new();
    let mut from_file = false;
    let mut first_operand = None;
    let mut i = 1;
    while i < words.len() {
        let t = words[i];
        if t.starts_with("--library-path") || (t.starts_with("-L") && !t.starts_with("--")) {
            return Some(format!("`jq {t}` (a folder jq loads modules from)"));
        }
        if t == "--from-file" || (t.starts_with('-') && !t.starts_with("--") && t.contains('f')) {
            from_file = true;
        } else if matches!(
            t,
            "--arg" | "--argjson" | "--slurpfile" | "--rawfile" | "--argfile"
        ) {
            i += 2;
        } else if matches!(t, "--indent" | "--tab") {
            i += usize::from(t == "--indent");
        } else if !t.starts_with('-') {
            first_operand = first_operand.or(Some(t));
            texts.push(t.to_string());
        }
        i += 1;
    }
    if from_file && let Some(p) = first_operand {
        texts.extend(read(dir, p));
    }
    texts
        .iter()
        .any(|x| jq_loads(x))
        .then(|| "jq's `include`/`import` (a module jq finds on its search path)".into())
}

/// Whether jq program `x` has an `include`/`import` directive: the keyword outside a
/// string, not a field (`.include`) or a variable, followed by a string literal.
fn jq_loads(x: &str) -> bool {
    let c: Vec<char> = x.chars().collect();
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut k = 0;
    while k < c.len() {
        if c[k] == '#' {
            while k < c.len() && c[k] != '\n' {
                k += 1;
            }
            continue;
        }
        if c[k] == '"' {
            k += 1;
            while k < c.len() && c[k] != '"' {
                k += if c[k] == '\\' { 2 } else { 1 };
            }
            k += 1;
            continue;
        }
        if ident(c[k]) {
            let from = k;
            while k < c.len() && ident(c[k]) {
                k += 1;
            }
            let word: String = c[from..k].iter().collect();
            let prev = c[..from].iter().rev().find(|ch| !ch.is_whitespace());
            let next = c[k..].iter().find(|ch| !ch.is_whitespace());
            if matches!(word.as_str(), "include" | "import")
                && !matches!(prev, Some('.' | '$'))
                && next == Some(&'"')
            {
                return true;
            }
            continue;
        }
        k += 1;
    }
    false
}

/// prove: `-l`/`--lib`/`-I`/`-b`/`--blib` put a folder a trial could write first on `@INC`,
/// and without `--norc` prove reads options from a `./.proverc` a trial could create
/// (review 14, c20). Review 17, e09, e17: Getopt::Long bundles short options (`-vI lib`:
/// an `I`, `l`, `b` or `e` anywhere in a cluster), `-e`/`--exec` is the command each test
/// runs with, `--rc F` an options file, `--state` a `./.prove` a trial could write, and
/// `-M lib=…` a folder on `@INC` too (abbreviations are refused with the other long options).
fn prove(words: &[&str]) -> Option<String> {
    let mut norc = false;
    let on_inc = |t: &str| Some(format!("`prove {t}` (a folder on Perl's module path)"));
    for t in &words[1..] {
        if *t == "--" || *t == "::" {
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            match name {
                "lib" | "blib" => return on_inc(t),
                "exec" => {
                    return Some(format!(
                        "`prove {t}` (the command prove runs each test with, which gate does not read)"
                    ));
                }
                "rc" => {
                    return Some(format!(
                        "`prove {t}` (a file of options gate does not read)"
                    ));
                }
                "state" => {
                    return Some(format!(
                        "`prove {t}` (a `./.prove` state file a trial could write)"
                    ));
                }
                "norc" => norc = true,
                _ => {}
            }
            continue;
        }
        let Some(c) = t.strip_prefix('-').filter(|c| !c.is_empty()) else {
            continue;
        };
        for (j, l) in c.char_indices() {
            match l {
                'I' | 'l' | 'b' => return on_inc(t),
                'e' => {
                    return Some(format!(
                        "`prove {t}` (the command prove runs each test with, which gate does not read)"
                    ));
                }
                // A module, a plugin, a count: the rest of the word (or the next) is its value.
                'M' | 'P' | 'j' | 'a' => {
                    if l == 'M' && c[j + 1..].contains("lib") {
                        return on_inc(t);
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    (!norc).then(|| {
        "`prove` without `--norc` (it reads options from a `./.proverc` a trial could create)"
            .into()
    })
}

/// perl: `-d` runs the debugger, which runs a `./.perldb` a trial could write (review 14,
/// c14); also in a cluster after `-l` or `-0`, which take only digits (review 17, e04,
/// e17: `-ld`, `-wld`, `-0d`).
fn perl(words: &[&str]) -> Option<String> {
    let mut i = 1;
    while i < words.len() {
        let t = words[i];
        if t == "--" || !t.starts_with('-') || t == "-" {
            break;
        }
        let c: Vec<char> = t[1..].chars().collect();
        let mut j = 0;
        while j < c.len() {
            let l = c[j];
            j += 1;
            if l == 'd' {
                return Some("`perl -d` (the debugger runs a `./.perldb`)".into());
            }
            // `-l[octal]`, `-0[octal]`, `-0x[hex]`: digits only, then the cluster goes on.
            if l == 'l' || l == '0' {
                if l == '0' && matches!(c.get(j), Some('x' | 'X')) {
                    j += 1;
                    while c.get(j).is_some_and(char::is_ascii_hexdigit) {
                        j += 1;
                    }
                } else {
                    while c.get(j).is_some_and(|d| ('0'..='7').contains(d)) {
                        j += 1;
                    }
                }
                continue;
            }
            // Letters whose value is the rest of the word; `-I DIR` the next word when
            // nothing is glued (review 17, e53: `perl -I graders -d …`).
            if "MmIxiCFDV".contains(l) {
                i += usize::from(l == 'I' && j == c.len());
                break;
            }
            if l == 'e' || l == 'E' {
                // The code is the next word.
                i += usize::from(j == c.len());
                break;
            }
        }
        i += 1;
    }
    None
}

/// Python modules run by `-m` that load code gate does not follow: `doctest` (runs the
/// examples of the file it is given). (`unittest` is read by [`unittest_loads`].)
const PYTHON_MODULES: &[&str] = &["doctest"];

/// What `python -m unittest ARGS` loads, as CPython's `unittest/main.py` (3.8 to 3.13) reads
/// its arguments.
#[derive(Debug, PartialEq)]
enum Unittest<'a> {
    /// Test modules named on the line (dotted names or paths).
    Names(Vec<&'a str>),
    /// Discovery: every `test*.py` beneath the start folder (and the packages there),
    /// imported with the top-level folder (by default the start) first on `sys.path`. Each
    /// holds every value the line gives (`-s`, the first operand): argparse keeps the last
    /// in the order it reads them, which gate does not model.
    Discover {
        starts: Vec<&'a str>,
        tops: Vec<&'a str>,
    },
    /// Arguments gate does not read for certain (an option it does not know, an
    /// abbreviation of two, a value missing): the line is refused.
    Unread(&'a str),
}

/// The long options of unittest's main parser (`takes` a value or not); discovery adds
/// [`UNITTEST_DISCOVER_LONG`]. argparse takes any unique prefix of one.
const UNITTEST_LONG: &[(&str, bool)] = &[
    ("help", false),
    ("verbose", false),
    ("quiet", false),
    ("locals", false),
    ("durations", true),
    ("failfast", false),
    ("catch", false),
    ("buffer", false),
];
const UNITTEST_DISCOVER_LONG: &[(&str, bool)] = &[
    ("start-directory", true),
    ("pattern", true),
    ("top-level-directory", true),
];

/// Reads `args` (the words after `-m unittest`). `unittest discover` (the first argument,
/// any case) reads the discovery options and up to three operands (start, pattern, top);
/// otherwise the operands are test names, and none at all (`python -m unittest -v`, `-k x`)
/// discovers from `.` as `discover` does.
fn unittest_args<'a>(args: &[&'a str]) -> Unittest<'a> {
    let discover = args
        .first()
        .is_some_and(|a| a.eq_ignore_ascii_case("discover"));
    let args = if discover { &args[1..] } else { args };
    let mut long: Vec<(&str, bool)> = UNITTEST_LONG.to_vec();
    // Short options: those that take a value.
    let mut short_valued = vec!['k'];
    if discover {
        long.extend_from_slice(UNITTEST_DISCOVER_LONG);
        short_valued.extend(['s', 'p', 't']);
    }
    let short_flags = ['h', 'v', 'q', 'f', 'c', 'b'];
    let (mut starts, mut tops) = (Vec::new(), Vec::new());
    let mut operands = Vec::new();
    let mut k = 0;
    while let Some(&w) = args.get(k) {
        k += 1;
        if w == "--" {
            operands.extend(args[k..].iter().copied());
            break;
        }
        if let Some(body) = w.strip_prefix("--") {
            let (key, inline) = match body.split_once('=') {
                Some((key, v)) => (key, Some(v)),
                None => (body, None),
            };
            let hits: Vec<&(&str, bool)> =
                long.iter().filter(|(n, _)| n.starts_with(key)).collect();
            let hit = hits
                .iter()
                .find(|(n, _)| *n == key)
                .or_else(|| (hits.len() == 1).then(|| &hits[0]));
            let Some(&&(full, takes)) = hit else {
                return Unittest::Unread(w);
            };
            let value = if takes {
                match inline.or_else(|| args.get(k).copied()) {
                    Some(v) => {
                        k += usize::from(inline.is_none());
                        Some(v)
                    }
                    None => return Unittest::Unread(w),
                }
            } else if inline.is_some() {
                return Unittest::Unread(w);
            } else {
                None
            };
            match (full, value) {
                ("start-directory", Some(v)) => starts.push(v),
                ("top-level-directory", Some(v)) => tops.push(v),
                _ => {}
            }
            continue;
        }
        if let Some(letters) = w.strip_prefix('-').filter(|l| !l.is_empty()) {
            // `-vb` (flags together), `-sX` / `-s X` (a value, attached or next).
            for (at, letter) in letters.char_indices() {
                if short_flags.contains(&letter) {
                    continue;
                }
                if !short_valued.contains(&letter) {
                    return Unittest::Unread(w);
                }
                let rest = &letters[at + letter.len_utf8()..];
                // argparse reads `-s=tests` (the option alone before `=`) as `tests`, and
                // `-s=` as the empty folder (the current one); in a cluster (`-vs=x`) it
                // keeps the `=`.
                let value = if at == 0
                    && let Some(v) = rest.strip_prefix('=')
                {
                    v
                } else if rest.is_empty() {
                    let Some(v) = args.get(k).copied() else {
                        return Unittest::Unread(w);
                    };
                    k += 1;
                    v
                } else {
                    rest
                };
                match letter {
                    's' => starts.push(value),
                    't' => tops.push(value),
                    _ => {}
                }
                break;
            }
            continue;
        }
        operands.push(w);
    }
    if discover {
        // `discover [start [pattern [top]]]`: the operands after the options' values.
        if operands.len() > 3 {
            return Unittest::Unread(operands[3]);
        }
        starts.extend(operands.first());
        tops.extend(operands.get(2));
        if starts.is_empty() {
            starts.push(".");
        }
        return Unittest::Discover { starts, tops };
    }
    if operands.is_empty() {
        Unittest::Discover {
            starts: vec!["."],
            tops: Vec::new(),
        }
    } else {
        Unittest::Names(operands)
    }
}

/// Why `python -m unittest ARGS`, run in `dir`, loads a test module a trial could write or
/// add, or `None`. A named module that exists when the plan is loaded is the plan's (held
/// as a script is); one missing from a folder the trials write is theirs to create (review
/// 91, 59). Discovery imports every `test*.py` beneath its start folder: accepted when that
/// folder exists and no folder the trials write lies at or beneath it (as pytest is given
/// `tests/`).
fn unittest_loads(
    args: &[&str],
    dir: &Path,
    writable: &dyn Fn(&Path) -> bool,
    beneath: &dyn Fn(&Path) -> bool,
) -> Option<String> {
    match unittest_args(args) {
        Unittest::Unread(w) => Some(format!(
            "`python -m unittest` given `{w}`, which gate does not read for certain (it cannot \
             tell which test modules it loads)"
        )),
        Unittest::Names(names) => names.into_iter().find_map(|o| {
            let path = if o.ends_with(".py") || o.contains('/') {
                o.to_string()
            } else {
                format!("{}.py", o.replace('.', "/"))
            };
            let package = dir.join(o.replace('.', "/"));
            let at = dir.join(&path);
            (!at.exists() && !package.is_dir() && writable(&at)).then(|| {
                format!(
                    "`python -m unittest {o}` (it imports `{o}`, missing when the plan is \
                     loaded, from a folder the trials write)"
                )
            })
        }),
        Unittest::Discover { starts, tops } => starts
            .into_iter()
            .find_map(|start| discovery_problem(start, dir, writable, beneath))
            .or_else(|| {
                tops.into_iter()
                    .find(|t| writable(&super::invoke::resolve(t, dir)))
                    .map(|t| {
                        format!(
                            "`python -m unittest` with the top-level folder `{t}`, which the \
                             trials write (it is first on `sys.path`)"
                        )
                    })
            }),
    }
}

/// Why discovery from `start` could import a trial's test module, or `None`.
fn discovery_problem(
    start: &str,
    dir: &Path,
    writable: &dyn Fn(&Path) -> bool,
    beneath: &dyn Fn(&Path) -> bool,
) -> Option<String> {
    let folder = super::invoke::resolve(start, dir);
    if !folder.is_dir() {
        return Some(format!(
            "`python -m unittest` discovering from `{start}`, not a folder when the \
             plan is loaded (name the folder of the tests: `python3 -m unittest \
             discover -s tests`)"
        ));
    }
    if writable(&folder) || beneath(&folder) {
        return Some(format!(
            "`python -m unittest` discovering from `{start}`, at or above a folder the \
             trials write (it imports every `test*.py` a trial adds there); name the \
             folder of the tests, outside the folders the trials write \
             (`python3 -m unittest discover -s tests`)"
        ));
    }
    // Discovery follows a link to a folder as it walks (`tests/more -> ../out`), and on
    // through the folder it reaches (`tests/lib -> ../lib`, `lib/gen -> ../out`: review
    // 101, a02, a10), where a folder the trials write may lie beneath.
    match followed_links(&folder, writable, beneath) {
        Ok(None) => {}
        Ok(Some(link)) => {
            return Some(format!(
                "`python -m unittest` discovering from `{start}`, where `{}` is a link to a \
                 folder the trials write or one above it",
                link.display()
            ));
        }
        Err(super::state::TooMany) => {
            return Some(format!(
                "`python -m unittest` discovering from `{start}`, which has more than {} \
                 entries to look through for links out of it",
                super::state::LINK_SCAN_ENTRIES
            ));
        }
    }
    match super::state::link_out_of(&folder, writable) {
        Ok(None) => {}
        Ok(Some((link, _))) => {
            return Some(format!(
                "`python -m unittest` discovering from `{start}`, where `{}` is a link \
                 into a folder the trials write",
                link.display()
            ));
        }
        Err(super::state::TooMany) => {
            return Some(format!(
                "`python -m unittest` discovering from `{start}`, which has more than \
                 {} entries to look through for links out of it",
                super::state::LINK_SCAN_ENTRIES
            ));
        }
    }
    None
}

/// The first link beneath `folder` to a folder that is, or holds, one the trials write,
/// following links to folders as Python's discovery (`os.walk` with `followlinks`,
/// `os.path.isdir`) does, each folder once.
fn followed_links(
    folder: &Path,
    writable: &dyn Fn(&Path) -> bool,
    beneath: &dyn Fn(&Path) -> bool,
) -> Result<Option<std::path::PathBuf>, super::state::TooMany> {
    let mut stack = vec![folder.to_path_buf()];
    let mut walked = std::collections::HashSet::new();
    let mut seen = 0usize;
    while let Some(at) = stack.pop() {
        let real = std::fs::canonicalize(&at).unwrap_or_else(|_| at.clone());
        if !walked.insert(real) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > super::state::LINK_SCAN_ENTRIES {
                return Err(super::state::TooMany);
            }
            let Ok(kind) = e.file_type() else { continue };
            let path = e.path();
            if kind.is_symlink() {
                if let Ok(target) = std::fs::canonicalize(&path)
                    && target.is_dir()
                {
                    if writable(&target) || beneath(&target) {
                        return Ok(Some(path));
                    }
                    stack.push(target);
                }
            } else if kind.is_dir() {
                stack.push(path);
            }
        }
    }
    Ok(None)
}

/// Python calls in inline code that run a file's code through a loader the tables of
/// [`super::grammar`] lack (review 14, c05, c25).
const PYTHON_CALLS: &[(&str, &str)] = &[
    ("zipimport", "imports modules from a zip file"),
    ("doctest", "runs the examples of a file"),
    (
        "fileConfig",
        "evaluates the `args` of a logging config file",
    ),
    ("dictConfig", "builds the handlers a config names"),
    ("addpackage", "runs the `import` lines of a `.pth` file"),
    ("addsitedir", "runs the `import` lines of its `.pth` files"),
    ("pkgutil", "imports modules from a folder it is given"),
    ("unittest", "imports the test modules it discovers"),
];

/// Python modules that, run by `-m`, run or import the file or the code they are given.
const PYTHON_FILE_RUNNERS: &[&str] = &[
    "trace", "pdb", "cProfile", "profile", "timeit", "runpy", "code", "pydoc", "inspect",
    "idlelib", // A REPL on stdin (review 91, 54).
    "asyncio",
];

/// Python modules and classes that run a string as code (`timeit.timeit(stmt)`,
/// `cProfile.run(cmd)`, `trace.Trace().run(cmd)`, `pdb.run`, `code.InteractiveInterpreter`):
/// inline code naming one is refused as `exec` is (review 17, e16).
const PYTHON_CODE_RUNNERS: &[&str] = &[
    "timeit",
    "cProfile",
    "profile",
    "trace",
    "pdb",
    "bdb",
    "InteractiveInterpreter",
    "InteractiveConsole",
    "interact",
];

/// Python `code` with adjacent string literals joined (`"pkg" "util"` as `"pkgutil"`).
fn joined_literals(code: &str) -> String {
    let mut out = code.to_string();
    for q in ['"', '\''] {
        for sep in ["", " ", "  ", "\t"] {
            out = out.replace(&format!("{q}{sep}{q}"), "");
        }
    }
    out
}

/// Whether `code` holds `word` as a whole identifier.
fn has_ident(code: &str, word: &str) -> bool {
    let id = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(word).any(|(at, _)| {
        !code[..at].chars().next_back().is_some_and(id)
            && !code[at + word.len()..].chars().next().is_some_and(id)
    })
}

/// python: `-m unittest`, `-m doctest`, and inline code with a call of [`PYTHON_CALLS`].
fn python(
    words: &[&str],
    dir: &Path,
    writable: &dyn Fn(&Path) -> bool,
    beneath: &dyn Fn(&Path) -> bool,
) -> Option<String> {
    // The module and the script as Python reads its options (review 101, a05, a06:
    // `-Im unittest` and `-Bm unittest discover`, a cluster ending in `m`, were read as no
    // module at all), then every `-m` word besides, as before.
    let inv = super::invoke::invocation(words).ok();
    if let Some(super::invoke::Runs::Module(at, m)) = inv.as_ref().map(|i| &i.runs)
        && let Some(why) = python_module(
            m,
            &words[(at + 1).min(words.len())..],
            dir,
            writable,
            beneath,
        )
    {
        return Some(why);
    }
    for (k, t) in words.iter().enumerate().skip(1) {
        let module = if *t == "-m" {
            words.get(k + 1).copied()
        } else {
            t.strip_prefix("-m").filter(|m| !m.is_empty())
        };
        if let Some(m) = module {
            let from = k + if *t == "-m" { 2 } else { 1 };
            if let Some(why) =
                python_module(m, &words[from.min(words.len())..], dir, writable, beneath)
            {
                return Some(why);
            }
        }
        if *t == "-c" || (t.starts_with('-') && !t.starts_with("--") && t.ends_with('c')) {
            // `__import__("pkg" "util")`: Python joins adjacent literals (review 17, e24).
            let joined = joined_literals(words.get(k + 1).copied().unwrap_or(""));
            let code = joined.as_str();
            if let Some((call, why)) = PYTHON_CALLS.iter().find(|(c, _)| code.contains(c)) {
                return Some(format!("python's `{call}` (it {why})"));
            }
            if let Some(m) = PYTHON_CODE_RUNNERS.iter().find(|m| has_ident(code, m)) {
                return Some(format!(
                    "python's `{m}` (it runs a string as code, as `exec` does)"
                ));
            }
            // Under `-c` the first folder on `sys.path` is `''`, the current folder at each
            // import: after `os.chdir` into a folder the trials write, an import finds a
            // trial's module there (review 102, a34). `-I` and `-P` leave it off.
            let isolated = gives_flag(&words[1..k + 1], &['I', 'P']);
            if !isolated && let Some(word) = code_may_move(&[code.to_string()], dir) {
                return Some(format!(
                    "python's `{word}` in inline code (the current folder is first on \
                     `sys.path` under `-c`, so an import after a change of folder looks where \
                     it went; run Python with `-I`, or the code as a script)"
                ));
            }
        }
    }
    inv.and_then(|inv| shadowed_module(words, &inv, dir, writable))
}

/// A Python reading its program on stdin (`python3 - < F`, `cat F | python3`) has `''`,
/// the current folder at each import, first on `sys.path`, as under `-c`: a program `fed`
/// (the files' texts, or the words `echo` gives it) that may change folder imports a
/// trial's module after it moves into a folder the trials write (review 102, a33;
/// [`code_may_move`]). `words` is the Python command, its program first, run in `dir`;
/// `-I` and `-P` leave that folder off.
pub(super) fn python_stdin_chdir(words: &[&str], fed: &[String], dir: &Path) -> Option<String> {
    let inv = super::invoke::invocation(words).ok()?;
    if inv.family != super::invoke::Family::Python || inv.runs != super::invoke::Runs::Stdin {
        return None;
    }
    let options: Vec<&str> = inv.options.iter().map(|&k| words[k]).collect();
    if gives_flag(&options, &['I', 'P']) {
        return None;
    }
    let word = code_may_move(fed, dir)?;
    Some(format!(
        "python's `{word}` in a program it reads on stdin (the current folder is first on \
         `sys.path` then, so an import after a change of folder looks where it went; run \
         Python with `-I`, or the program as a script by its path)"
    ))
}

/// Names in Python code that change the current folder, or may by a name or code gate does
/// not read: a call by a computed name, code run from text or a file, a module imported by a
/// computed name (review 103, a05-a09, a19: `getattr(os, "ch" + "dir")`, `os.fchdir`,
/// `exec(open(F).read())`, `runpy.run_path`).
const PYTHON_MOVES: &[&str] = &[
    "chdir",
    "fchdir",
    "attrgetter",
    "methodcaller",
    "getattr_static",
    "__getattribute__",
    "__getattr__",
    "pickle",
    "marshal",
    "ctypes",
    "runpy",
    "run_path",
    "run_module",
    "__import__",
    "import_module",
    "importlib",
    "__dict__",
    "__builtins__",
    "builtins",
    "__loader__",
];

/// Python's built-in functions of that kind, counted where they are called by their own
/// name (`re.compile(…)` is another function).
const PYTHON_MOVING_BUILTINS: &[&str] = &[
    "getattr", "setattr", "exec", "eval", "compile", "vars", "globals",
];

/// The first of [`PYTHON_MOVES`] in Python code `codes`, or in a module of the folder `dir`
/// (where `''` on `sys.path` finds it) that they import, and those import in turn (review
/// 103, a18: the program imports `gradelib.py`, which changes folder): at most 32 modules.
fn code_may_move(codes: &[String], dir: &Path) -> Option<&'static str> {
    let mut texts: Vec<String> = codes.to_vec();
    let mut read: Vec<PathBuf> = Vec::new();
    let mut k = 0;
    while let Some(code) = texts.get(k).cloned() {
        k += 1;
        let builtin = |w: &&&str| {
            code.match_indices(**w).any(|(at, _)| {
                !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.')
                    && !code[at + w.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            })
        };
        // `chdir` anywhere, even glued to other letters (`b"cos\nchdir"` in a pickle:
        // review 104, a09).
        if code.contains("chdir") {
            return Some("chdir");
        }
        if let Some(word) = (PYTHON_MOVES.iter().find(|w| has_ident(&code, w)))
            .or_else(|| PYTHON_MOVING_BUILTINS.iter().find(builtin))
        {
            return Some(word);
        }
        for name in imported_names(&code) {
            // Every module of the current folder the import runs: `a.py` or the package
            // `a/` (each of its files: a relative import, a submodule: review 104, a04-a06,
            // a12, a23, a25), a compiled `a.pyc` gate cannot read (a24).
            let top = name.split('.').next().unwrap_or("");
            let package = dir.join(top);
            let files: Vec<PathBuf> = if package.is_dir() {
                python_files(std::slice::from_ref(&package), 64)
            } else {
                vec![dir.join(format!("{top}.py"))]
            };
            let compiled = dir.join(format!("{top}.pyc")).exists()
                || std::fs::read_dir(dir.join("__pycache__"))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .any(|e| {
                        e.file_name()
                            .to_string_lossy()
                            .starts_with(&format!("{top}."))
                    });
            if compiled && !dir.join(format!("{top}.py")).exists() && !package.is_dir() {
                return Some("a module of the current folder without its source");
            }
            for f in files {
                if read.len() >= 64 || read.contains(&f) {
                    continue;
                }
                texts.extend(super::state::grader_text(&f));
                read.push(f);
            }
        }
    }
    None
}

/// The Python files of `targets` (a `.py` file itself, or every `.py` file beneath a
/// folder, links not followed): at most `most`, after looking at 20,000 entries at most.
pub(super) fn python_files(targets: &[PathBuf], most: usize) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo: Vec<PathBuf> = targets.to_vec();
    let mut seen = 0;
    while let Some(at) = todo.pop() {
        seen += 1;
        if seen > 20_000 || out.len() >= most {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(&at) else {
            continue;
        };
        if meta.is_dir() {
            todo.extend(
                std::fs::read_dir(&at)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
        } else if meta.is_file() && at.extension().is_some_and(|e| e == "py") {
            out.push(at);
        }
    }
    out
}

/// The top-level modules Python `code` imports by name ([`imported_names`]).
pub(super) fn imported_modules(code: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in imported_names(code) {
        let top = n.split('.').next().unwrap_or("").to_string();
        if !out.contains(&top) {
            out.push(top);
        }
    }
    out
}

/// The modules Python `code` imports by name, dotted as written: `import a.b, c as d`, `from
/// e.f import g` (relative imports left out), in any statement of a line (`try: import x`,
/// `if t: import y; import z`), across `\` continuations and parentheses, and the names
/// given as text to `importorskip`, `import_module` and `__import__` (review 104: p01-p12).
pub(super) fn imported_names(code: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |n: &str| {
        let n = n.trim();
        if n.split('.').all(module_name) && !out.iter().any(|o| o == n) {
            out.push(n.to_string());
        }
    };
    let joined = code.replace("\\\r\n", " ").replace("\\\n", " ");
    let flat: String = joined
        .chars()
        .map(|c| if "()".contains(c) { ' ' } else { c })
        .collect();
    for statement in flat.split(['\n', ';', ':']) {
        let words: Vec<&str> = statement.split_whitespace().collect();
        match words.as_slice() {
            ["import", rest @ ..] => {
                for n in rest.join(" ").split(',') {
                    push(n.split(" as ").next().unwrap_or(""));
                }
            }
            ["from", module, "import", ..] if !module.starts_with('.') => push(module),
            _ => {}
        }
    }
    for call in ["importorskip(", "import_module(", "__import__("] {
        for (at, _) in joined.match_indices(call) {
            let rest = joined[at + call.len()..].trim_start();
            if let Some(q) = rest.chars().next().filter(|q| *q == '"' || *q == '\'')
                && let Some(end) = rest[1..].find(q)
            {
                push(&rest[1..1 + end]);
            }
        }
    }
    out
}

/// [`shadowed_module`] of the Python command `words` (its program first) run in `dir`: for
/// a Python a grader script starts, or one a `#!` line names.
pub(super) fn python_shadow(
    words: &[&str],
    dir: &Path,
    writable: &dyn Fn(&Path) -> bool,
) -> Option<String> {
    let inv = super::invoke::invocation(words).ok()?;
    shadowed_module(words, &inv, dir, writable)
}

/// The interpreter a `#!` line at the head of `file` names, where it is a Python: its name
/// (`python3` of `#!/usr/bin/env python3` or `#!/usr/bin/python3 -u`).
pub(super) fn shebang_python(file: &Path) -> Option<String> {
    use std::io::Read as _;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(file).ok()?.read(&mut head).ok()?;
    let text = String::from_utf8_lossy(&head[..n]);
    let line = text.lines().next()?.strip_prefix("#!")?;
    let mut words = line.split_whitespace();
    let first = name_of(words.next()?);
    let program = if first == "env" {
        words
            .find(|w| !w.starts_with('-') && !w.contains('='))?
            .to_string()
    } else {
        first
    };
    let name = name_of(&program);
    is_python(&name).then_some(name)
}

/// Why `python -m m ARGS` loads what gate does not follow, or `None`.
fn python_module(
    m: &str,
    args: &[&str],
    dir: &Path,
    writable: &dyn Fn(&Path) -> bool,
    beneath: &dyn Fn(&Path) -> bool,
) -> Option<String> {
    let top = m.split('.').next().unwrap_or(m);
    // `unittest`'s own `__main__` (not `unittest.mock` and the like, which run no tests and
    // are not modules `-m` runs).
    if m == "unittest" || m == "unittest.__main__" {
        return unittest_loads(args, dir, writable, beneath);
    }
    // Review 17, e06: `-m pickle F` unpickles F, and unpickling calls any callable.
    if matches!(top, "pickle" | "_pickle" | "shelve" | "dill") {
        return Some(format!(
            "`python -m {m}` (unpickling the file it is given runs code from it)"
        ));
    }
    // Modules that run or import the file or code they are given, which gate does not read
    // as a script (review 17, e05, e06).
    if PYTHON_FILE_RUNNERS.contains(&top) {
        return Some(format!(
            "`python -m {m}` (it runs the file or code it is given; run the script by its path)"
        ));
    }
    if PYTHON_MODULES.contains(&top) || top == "unittest" {
        return Some(format!(
            "`python -m {m}` (it loads files gate does not follow: a trial could add one)"
        ));
    }
    None
}

/// The top-level module names of the standard library of Pythons 3.6 to 3.13, and those
/// only Python 2.7 has (`scripts/python-stdlib-names.sh` writes both lists from the Pythons
/// themselves).
const PYTHON_STDLIB: &str = include_str!("python_stdlib.txt");
const PYTHON2_STDLIB: &str = include_str!("python2_stdlib.txt");

/// Standard modules every Python (2.7, 3.6 to 3.13) has imported when it starts, before
/// the script's folder is on `sys.path`: `python -S -E -s -c 'print(sys.modules)'`, the
/// names all of them share.
const PYTHON_PRELOADED: [&str; 4] = ["sys", "codecs", "encodings", "zipimport"];

/// And those every Python 3 (3.6 to 3.13) has imported by then unless `-S` leaves `site`
/// out (`site` and what it imports: `python3 -I -c 'print(sys.modules)'`, the names all of
/// them share).
const PYTHON3_PRELOADED: [&str; 8] = [
    "site",
    "os",
    "io",
    "abc",
    "stat",
    "posixpath",
    "genericpath",
    "builtins",
];

/// Most entries of one folder on a Python check's `sys.path` that gate looks through.
const SHADOW_SCAN_ENTRIES: usize = 20_000;

/// A folder the trials write that lies directly in a folder Python puts first on `sys.path`
/// for this line — the script's folder, or under `-m`, `-c` and stdin the folder it runs in
/// (neither under `-I` or `-P`), and unittest's top-level folder — and is named like a
/// module the grader may import: one of the standard library's, or one that folder or
/// another of those holds (`data.py` beside a folder `data/`). A trial's `NAME/__init__.py`
/// there is imported in its place (a package comes before a module of the same folder, and
/// before a namespace package anywhere): review 101, a01, a03, a07, a12, a21, a25.
fn shadowed_module(
    words: &[&str],
    inv: &super::invoke::Invocation,
    dir: &Path,
    writable: &dyn Fn(&Path) -> bool,
) -> Option<String> {
    use super::invoke::Runs;
    let options: Vec<&str> = inv.options.iter().map(|&k| words[k]).collect();
    let flag = |letters: &[char]| gives_flag(&options, letters);
    // `-I` and `-P` (3.11) leave the script's folder and the current one off `sys.path`.
    let safe = flag(&['I', 'P']);
    let no_site = flag(&['S']);
    // A Python 3 by its name (`python3`, `python3.11`, `pypy3`): Python 2's own modules
    // are none of its.
    let program = name_of(words[0]);
    let python3 = ["python3", "pypy3"].iter().any(|p| program.starts_with(p));
    let mut folders: Vec<std::path::PathBuf> = Vec::new();
    if !safe {
        match &inv.runs {
            Runs::Script(k) => {
                let script = super::invoke::resolve(words[*k], dir);
                let real = std::fs::canonicalize(&script).unwrap_or(script);
                folders.extend(real.parent().map(Path::to_path_buf));
            }
            Runs::Module(..) | Runs::Code(_) | Runs::Stdin => folders.push(dir.to_path_buf()),
            Runs::Nothing | Runs::Tests(_) => {}
        }
    }
    // unittest discovery puts its top-level folder (or its start) first, `-I` or not.
    if let Runs::Module(at, m) = &inv.runs
        && (m == "unittest" || m == "unittest.__main__")
        && let Unittest::Discover { starts, tops } =
            unittest_args(&words[(at + 1).min(words.len())..])
    {
        let given = if tops.is_empty() { starts } else { tops };
        folders.extend(given.iter().map(|t| super::invoke::resolve(t, dir)));
    }
    shadow_in_folders(&folders, writable, python3, no_site)
}

/// Whether `n` names a module of Python 3's standard library.
pub(super) fn python3_stdlib(n: &str) -> bool {
    PYTHON_STDLIB.lines().any(|l| l == n)
}

/// The first folder the trials write (or a link to where they will) lying directly in one
/// of `folders` on `sys.path` and named like one of the modules `names` the grader's code
/// imports: a trial's package there is what that import finds, wherever else Python looks
/// (an optional `try: import ujson` of a module not installed: review 103, p12, p13).
pub(super) fn named_in_folders(
    folders: &[std::path::PathBuf],
    names: &[String],
    writable: &dyn Fn(&Path) -> bool,
) -> Option<String> {
    for folder in folders {
        for name in names {
            let path = folder.join(name);
            let dangling = path.is_symlink() && !path.exists();
            let target = match std::fs::read_link(&path) {
                Ok(to) if dangling => folder.join(to),
                _ => std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()),
            };
            if (path.is_dir() || dangling) && writable(&target) {
                return Some(format!(
                    "`{}`, a folder the trials write, lies in `{}` on `sys.path` and is named \
                     like the module `{name}` the tests import: a trial's \
                     `{name}/__init__.py` would be what that import finds; rename the folder \
                     (the task's `writes:`)",
                    path.display(),
                    folder.display()
                ));
            }
        }
    }
    None
}

/// Whether `n` can name a top-level Python module (an identifier: a folder of that name is
/// a package `import n` finds).
pub(super) fn module_name(n: &str) -> bool {
    !n.is_empty()
        && !n.starts_with(|c: char| c.is_ascii_digit())
        && n.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Whether one of Python's flags `letters` is among `words`, alone or in a cluster (`-IB`:
/// every letter before one that takes a value is a flag).
fn gives_flag(words: &[&str], letters: &[char]) -> bool {
    words.iter().any(|w| {
        w.strip_prefix('-').is_some_and(|l| {
            !l.starts_with('-')
                && l.chars()
                    .take_while(|c| !matches!(c, 'c' | 'm' | 'W' | 'X'))
                    .any(|c| letters.contains(&c))
        })
    })
}

/// [`shadowed_module`]'s look through the folders Python puts first on `sys.path`
/// (`folders`), for a Python 3 by its name (`python3`) and one run with `-S` (`no_site`);
/// also for the folders a `PYTHONPATH` adds (review 102, a22, a26, a27).
pub(super) fn shadow_in_folders(
    folders: &[std::path::PathBuf],
    writable: &dyn Fn(&Path) -> bool,
    python3: bool,
    no_site: bool,
) -> Option<String> {
    let folders: Vec<std::path::PathBuf> = folders
        .iter()
        .map(|f| std::fs::canonicalize(f).unwrap_or_else(|_| f.clone()))
        .collect();
    for folder in &folders {
        let Ok(entries) = std::fs::read_dir(folder) else {
            continue;
        };
        for (seen, e) in entries.flatten().enumerate() {
            if seen >= SHADOW_SCAN_ENTRIES {
                return Some(format!(
                    "a Python check whose folder `{}` on `sys.path` has more than \
                     {SHADOW_SCAN_ENTRIES} entries to look through for folders the trials \
                     write",
                    folder.display()
                ));
            }
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            // A link there whose folder is missing when the plan is loaded (`html ->
            // out/html`) is one a trial creates (review 102, a08).
            let dangling = e.file_type().is_ok_and(|k| k.is_symlink()) && !path.exists();
            let target = match std::fs::read_link(&path) {
                Ok(to) if dangling => folder.join(to),
                _ => path.clone(),
            };
            // The bytecode cache of the modules in this folder as a link (into a folder the
            // trials write, or through a chain of links a trial completes: review 103,
            // c03): a trial's forged `.pyc` would run in place of a source beside it
            // (review 102, a14). Python makes a real folder of its own.
            if name == "__pycache__" && e.file_type().is_ok_and(|k| k.is_symlink()) {
                return Some(format!(
                    "a Python check whose folder `{}` on `sys.path` keeps its bytecode cache \
                     `__pycache__` through a link, which may lead where the trials write: a \
                     trial's compiled module would run in place of the source beside it; \
                     remove the link (Python skips a cache it cannot write)",
                    folder.display()
                ));
            }
            if !module_name(&name) || !(path.is_dir() || dangling) || !writable(&target) {
                continue;
            }
            // Modules Python has imported before it puts these folders on `sys.path`: a
            // package of that name is never imported.
            let preloaded = PYTHON_PRELOADED.contains(&name.as_str())
                || (python3 && !no_site && PYTHON3_PRELOADED.contains(&name.as_str()))
                || (name == "site" && !no_site);
            let stdlib = !preloaded
                && (PYTHON_STDLIB.lines().any(|l| l == name)
                    || (!python3 && PYTHON2_STDLIB.lines().any(|l| l == name)));
            let beside = folders.iter().find_map(|g| {
                [g.join(format!("{name}.py")), g.join(&name)]
                    .into_iter()
                    .find(|c| *c != path && c.exists() && !writable(c))
            });
            if stdlib || beside.is_some() {
                let like = match &beside {
                    Some(b) => format!("`{}`", b.display()),
                    None => format!("the standard library's `{name}`"),
                };
                return Some(format!(
                    "a Python check with `{}`, a folder the trials write, first on its \
                     import path (`sys.path`), named like {like}: a trial's \
                     `{name}/__init__.py` would be imported in its place; rename the folder \
                     (the task's `writes:`), or run Python with `-I` and the script by its \
                     path",
                    path.display()
                ));
            }
        }
    }
    None
}

/// node: a preload named by a bare package name (`-r NAME`, `--require=NAME`, `--import`,
/// `--loader`) when the folder the check runs in has no `node_modules`: node looks for it
/// in `./node_modules` first, which a trial could create (review 14, c44; as `--test-reporter
/// NAME`, review 13, b09).
fn node(words: &[&str], dir: &Path, writable: &dyn Fn(&Path) -> bool) -> Option<String> {
    // A bare name resolves in `./node_modules/NAME` when that package is there when the plan
    // is loaded; otherwise a trial could create it, in a `node_modules` it creates or one
    // that is there already (review 17, e08).
    // (Or in the `node_modules` beside the grader that requires it, which node searches
    // first and which is protected with the grader's folder: review 17, e57.)
    let top_of = |name: &str| {
        let mut parts = name.split('/');
        match (parts.next(), parts.next()) {
            (Some(scope), Some(n)) if scope.starts_with('@') => Some(format!("{scope}/{n}")),
            (Some(t), _) => Some(t.to_string()),
            _ => None,
        }
    };
    let installed =
        |name: &str| top_of(name).is_some_and(|top| dir.join("node_modules").join(top).exists());
    // A script's own requires, and those of the files it loads, resolve as node resolves
    // them: in the `node_modules` of the requiring file's folder, then of each folder
    // above (review 22, 14). The package must be found that way when the plan is loaded,
    // and no folder on the way before it may be one where a trial could create a
    // `node_modules` (or the package in one) that node would find first. The grader's own
    // folder and those beneath it are read-only whole, and every `node_modules` that exists
    // above the check's folder and its graders is held read-only while node runs there
    // ([`super::state::node_folders`]): neither can gain the package.
    // The folders of what node runs from the line, each the plan's own grader's and held
    // read-only whole: the script's, each test file's or folder's (`--test graders/`), each
    // preload's by path (review 35, 61l2, 61m, 61n).
    let inv = super::invoke::invocation(words).ok();
    let path_like = |v: &str| v.starts_with("./") || v.starts_with("../") || v.starts_with('/');
    let mut held_folders: Vec<std::path::PathBuf> = Vec::new();
    if let Some(inv) = &inv {
        let ran: Vec<usize> = match &inv.runs {
            super::invoke::Runs::Script(k) => vec![*k],
            super::invoke::Runs::Tests(ks) => ks.clone(),
            _ => Vec::new(),
        };
        for k in ran {
            let at = super::invoke::resolve(words[k], dir);
            held_folders.extend(if at.is_dir() {
                Some(at)
            } else {
                at.parent().map(Path::to_path_buf)
            });
        }
        for (_, value, _) in inv.loads.iter().filter(|(_, v, _)| path_like(v)) {
            let at = super::invoke::resolve(value, dir);
            held_folders.extend(at.parent().map(Path::to_path_buf));
        }
    }
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let held = |folder: &Path| held_folders.iter().any(|s| folder.starts_with(s));
    // Each `node_modules` is read for links once, however many packages resolve above it.
    let scanned = std::cell::RefCell::new(std::collections::BTreeSet::<std::path::PathBuf>::new());
    let not_found = |name: &str| {
        format!(
            "`require(\"{name}\")`, a package node looks up in a `node_modules` a trial could \
             create or add to in the task's folder"
        )
    };
    // Review 26, 01, 15: before any `node_modules`, node reads the nearest `package.json`
    // above the requiring file: one whose `name` is the package's and which has `exports` is
    // the package itself ("self-reference"). That file must be one the trials cannot write
    // or create: in the grader's folder (even `{}`). `what` is the require, in words.
    let self_reference = |what: &str, base: &Path| -> Result<(), String> {
        for folder in base.ancestors() {
            let manifest = folder.join("package.json");
            if manifest.is_file() {
                if !held(folder) && writable(folder) {
                    return Err(format!(
                        "{what} from a grader whose nearest `package.json` is `{}`, which the \
                         trials write (node reads a package of that name there first); put a \
                         `package.json` (`{{}}` will do) beside the grader",
                        manifest.display()
                    ));
                }
                break;
            }
            if !held(folder) && writable(folder) {
                return Err(format!(
                    "{what} from a grader with no `package.json` in its folder: a trial could \
                     create `{}` naming itself after the package, which node reads first; put a \
                     `package.json` (`{{}}` will do) beside the grader",
                    manifest.display()
                ));
            }
        }
        Ok(())
    };
    let resolves = |name: &str, base: &Path| -> Result<(), String> {
        let Some(top) = top_of(name) else {
            return Err(not_found(name));
        };
        for folder in base.ancestors() {
            let modules = folder.join("node_modules");
            if modules.join(&top).exists() {
                // Review 26, 03, 04: the package's files as node loads them, where links
                // and its `main` lead (a workspace link `node_modules/@app/eq ->
                // ../../packages/eq`, `"main": "../../lib/eq.js"`), may lie where the
                // trials write, outside the `node_modules` held read-only.
                let package = real(&modules.join(&top));
                let outside = |p: &Path| !p.starts_with(real(&modules)) && writable(p);
                let main = std::fs::read_to_string(package.join("package.json"))
                    .ok()
                    .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                    .and_then(|v| v.get("main").and_then(|m| m.as_str()).map(str::to_string));
                let entry = main.map(|m| real(&package.join(m)));
                if let Some(p) = std::iter::once(&package)
                    .chain(entry.as_ref())
                    .find(|p| outside(p))
                {
                    return Err(format!(
                        "`require(\"{name}\")`, a package whose files node loads from `{}`, \
                         which the trials write (a link or the package's `main` leads there)",
                        p.display()
                    ));
                }
                // Review 27: any link in that `node_modules` (a file of the package, a
                // folder of it, a dependency's workspace link) whose target lies where the
                // trials write is a file node may load that a trial rewrites.
                // Review 28, 04a: the package's own dependencies resolve up the same walk
                // (`graders/node_modules/eq` requiring `dep` from the task's
                // `node_modules`), so every `node_modules` on it is read.
                for above in base.ancestors() {
                    let m = above.join("node_modules");
                    if m.is_dir()
                        && scanned.borrow_mut().insert(m.clone())
                        && let Some(why) = links_out_of(&m, writable)
                    {
                        return Err(format!("`require(\"{name}\")`, {why}"));
                    }
                }
                return self_reference(&format!("`require(\"{name}\")`"), base);
            }
            if !(modules.is_dir() || held(folder)) && writable(folder) {
                return Err(format!(
                    "`require(\"{name}\")`, a package node looks for first in `{}`, which a \
                     trial could create (install the package beside the grader, in its own \
                     `node_modules`)",
                    modules.display()
                ));
            }
        }
        // Found nowhere: a trial could create it only in a folder on the way that it writes
        // (with `writes:`, the check's folder may be none: review 63, 16).
        if base.ancestors().any(writable) {
            Err(not_found(name))
        } else {
            Ok(())
        }
    };
    // Inline code (`-e`, `-p`, `--eval`, `--print`) and a script's own requires (review 14,
    // c04, c31), and those of the files they load by a relative name, transitively (review
    // 17, e08): a bare package name that is not one of node's own modules.
    // The script and the code words as the one reading of node's words finds them (review
    // 17, e52: `node -r ./setup.js graders/main.js`, `--title t graders/main.js`).
    let mut codes = Vec::new();
    let invocation = inv.as_ref();
    match invocation.map(|i| &i.runs) {
        Some(super::invoke::Runs::Code(ks)) => {
            codes.extend(
                ks.iter()
                    .map(|&k| (words[k].to_string(), dir.to_path_buf())),
            );
        }
        Some(super::invoke::Runs::Script(k)) => {
            let at = super::invoke::resolve(words[*k], dir);
            if let Ok(text) = std::fs::read_to_string(&at) {
                codes.push((text, at.parent().unwrap_or(dir).to_path_buf()));
            }
        }
        _ => {}
    }
    // Review 34, 55a, 55b: a preload by its path (`-r ./graders/setup.js`, `--import
    // ./graders/setup.mjs`) runs first, and loads what it requires.
    for (_, value, _) in invocation.iter().flat_map(|i| &i.loads) {
        if !path_like(value) {
            // Review 35, 61a, 61b, 61e: a preload by a package's name (`-r dotenv/config`,
            // `--import tsx`) resolves from the check's own folder, where the trials write
            // the `package.json` node reads first, so it is that package.
            let top = value.split('/').next().unwrap_or(value);
            if super::words::node_own(value) {
                continue;
            }
            if writable(dir) {
                return Some(format!(
                    "the preload `{value}`, a package node looks up from the check's folder \
                     `{}`, where a trial can write the `package.json` node reads first (naming \
                     itself `{top}`); preload the package's file by its path \
                     (`-r ./graders/node_modules/{value}`), or require it from a grader",
                    dir.display()
                ));
            }
            continue;
        }
        if let Some(f) = super::words::node_resolve(dir, value)
            && f.is_file()
            && let Ok(text) = std::fs::read_to_string(&f)
        {
            codes.push((text, f.parent().unwrap_or(dir).to_path_buf()));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut c = 0;
    while c < codes.len() && c < 200 {
        let (code, base) = codes[c].clone();
        // Review 34, 52j: `requir\u0065(n)` is `require(n)`.
        let code = super::words::js_unescape(&code).into_owned();
        c += 1;
        // Review 27, 03g; reviews 30 and 31 ([`super::words::create_require_problem`]).
        if let Some(why) = super::words::create_require_problem(&code) {
            return Some(why);
        }
        for name in module_names(&code) {
            let path = name.starts_with('.') || name.starts_with('/') || name.contains(':');
            if path {
                if let Some(f) = super::words::node_resolve(&base, &name)
                    && f.is_file()
                    && seen.insert(f.clone())
                    && let Ok(text) = std::fs::read_to_string(&f)
                {
                    codes.push((text, f.parent().unwrap_or(&base).to_path_buf()));
                }
                continue;
            }
            let top = name.split('/').next().unwrap_or(&name);
            if name.is_empty() || NODE_BUILTINS.contains(&top) {
                continue;
            }
            if let Err(why) = resolves(&name, &base) {
                return Some(why);
            }
        }
        // Review 33, 39i: a package by a name the code computes (`require(n)`) may be any,
        // the grader's own package name included.
        if super::words::computed_module_load(&code)
            && let Err(why) = self_reference("a `require` or `import` of a computed name", &base)
        {
            return Some(why);
        }
    }
    for (k, t) in words.iter().enumerate().skip(1) {
        for long in [
            "-r",
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
            "--preload",
        ] {
            let v = value_of(words, k, long).map(|(v, _)| v).or_else(|| {
                (long == "-r")
                    .then(|| t.strip_prefix("-r").filter(|v| !v.is_empty()))
                    .flatten()
            });
            let Some(v) = v else { continue };
            let path = v.starts_with('.')
                || v.starts_with('/')
                || v.to_ascii_lowercase().starts_with("file:");
            if !path && !v.starts_with("node:") && !installed(v) {
                return Some(format!(
                    "`{long} {v}`, a package node looks up in a `node_modules` a trial could create \
                     or add to in the task's folder"
                ));
            }
        }
    }
    None
}

/// Why the `node_modules` folder `modules` holds a link whose target lies outside it in a
/// folder the trials write (`writable`), or has more entries than gate reads; `None` when
/// it has neither.
fn links_out_of(modules: &Path, writable: &dyn Fn(&Path) -> bool) -> Option<String> {
    match super::state::link_out_of(modules, writable) {
        Ok(None) => None,
        Ok(Some((path, target))) => Some(format!(
            "a package in `{}` with a link, `{}`, to `{}`, which the trials write",
            modules.display(),
            path.display(),
            target.display()
        )),
        Err(super::state::TooMany) => Some(format!(
            "a package in `{}`, which has more than {} entries to look through for links out \
             of it (keep the grader's packages in a `node_modules` of its own)",
            modules.display(),
            super::state::LINK_SCAN_ENTRIES
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(line: &str) -> Option<String> {
        let words: Vec<&str> = line.split(' ').collect();
        problem(&words, Path::new("/nonexistent"), &|_| false, &|_| false)
    }

    #[test]
    fn review14_tools_that_run_commands_or_load_modules_are_refused() {
        for l in [
            "awk BEGIN{system(c)}",
            "awk BEGIN{\"sh\"|getline;exit}",
            "awk BEGIN{c|getline}",
            "awk {print|\"sh\"}",
            "sed s/x/sh\\/g/e",
            "sed s,x,sh,e",
            "sed -e s/x/y/ep",
            "sed --expression=s/x/y/e",
            "sed 1e",
            "make --eval=x",
            "make -E x",
            "make -Iinc",
            "git -c alias.t=!sh t",
            "tar -xf - --to-command=sh",
            "tar -I zstd -xf a",
            "jq -Llib .",
            "jq --library-path lib .",
            "jq include\"chk\";.",
            "prove -l t/",
            "prove -Ilib t/",
            "prove t/",
            "perl -d:Trace g.pl",
            "perl -wd g.pl",
            "python3 -I -m unittest discover",
            "python3 -I -m doctest x.txt",
            "python3 -I -m unittest",
            "python3 -I -m unittest -v discover -s lib",
            "python3 -I -c zipimport.zipimporter(p)",
            "node -r okpre g.js",
            "node --require=okpre g.js",
            "node --import okpre g.js",
        ] {
            assert!(why(l).is_some(), "accepted: {l}");
        }
        // A package found nowhere: refused where a trial could create it, in a folder on the
        // way that it writes; not where none is (`writes:` elsewhere: review 63, 16).
        let words = ["node", "-e", "require(\"okcheck\")"];
        assert!(problem(&words, Path::new("/nonexistent"), &|_| true, &|_| true).is_some());
        assert!(problem(&words, Path::new("/nonexistent"), &|_| false, &|_| false).is_none());
    }

    /// `python -m unittest`'s arguments read as CPython's `unittest/main.py` reads them:
    /// `discover` first (any case) or no test names at all discovers; argparse's
    /// abbreviations and attached values; every start a line gives is kept.
    #[test]
    fn unittest_arguments_are_read_as_unittest_reads_them() {
        use Unittest::*;
        let read = |line: &str| {
            let words: Vec<&str> = line.split(' ').filter(|w| !w.is_empty()).collect();
            format!("{:?}", unittest_args(&words))
        };
        let discover = |starts: &[&str], tops: &[&str]| {
            format!(
                "{:?}",
                Discover {
                    starts: starts.to_vec(),
                    tops: tops.to_vec()
                }
            )
        };
        for (line, want) in [
            ("", discover(&["."], &[])),
            ("-v", discover(&["."], &[])),
            ("-k x --durations 5 -fcb", discover(&["."], &[])),
            ("discover", discover(&["."], &[])),
            ("DISCOVER tests", discover(&["tests"], &[])),
            ("discover -s tests", discover(&["tests"], &[])),
            ("discover -stests -p *_t.py", discover(&["tests"], &[])),
            ("discover --start=tests", discover(&["tests"], &[])),
            ("discover --st tests -t .", discover(&["tests"], &["."])),
            ("discover tests x_*.py lib", discover(&["tests"], &["lib"])),
            ("discover -vs tests", discover(&["tests"], &[])),
            // argparse keeps the last it reads; gate keeps both.
            ("discover tests -s .", discover(&[".", "tests"], &[])),
            ("tests.test_a", format!("{:?}", Names(vec!["tests.test_a"]))),
            (
                "-v t/test_a.py",
                format!("{:?}", Names(vec!["t/test_a.py"])),
            ),
            ("-k x mod", format!("{:?}", Names(vec!["mod"]))),
            ("-s tests", format!("{:?}", Unread("-s"))),
            ("--bogus", format!("{:?}", Unread("--bogus"))),
            ("discover --", discover(&["."], &[])),
            ("discover -s", format!("{:?}", Unread("-s"))),
            ("discover a b c d", format!("{:?}", Unread("d"))),
            ("--verbose=1", format!("{:?}", Unread("--verbose=1"))),
        ] {
            assert_eq!(read(line), want, "{line}");
        }
    }

    /// Discovery is accepted from an existing folder with no folder the trials write at or
    /// beneath it, and refused otherwise.
    #[test]
    fn unittest_discovery_is_held_to_its_start_folder() {
        let tmp = std::env::temp_dir().join(format!("gate-unittest-{}", std::process::id()));
        std::fs::create_dir_all(tmp.join("tests")).unwrap();
        std::fs::create_dir_all(tmp.join("out")).unwrap();
        let out = std::fs::canonicalize(tmp.join("out")).unwrap();
        let writable = |p: &Path| {
            std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.to_path_buf())
                .starts_with(&out)
        };
        let beneath = |p: &Path| {
            out.starts_with(std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()))
        };
        let why = |line: &str| {
            let words: Vec<&str> = line.split(' ').collect();
            problem(&words, &tmp, &writable, &beneath)
        };
        for ok in [
            "python3 -m unittest discover -s tests",
            "python3 -m unittest discover tests -v",
            "python3 -m unittest discover -s tests -t .",
        ] {
            assert_eq!(why(ok), None, "{ok}");
        }
        for refused in [
            "python3 -m unittest",
            "python3 -m unittest -k test",
            "python3 -m unittest Discover",
            "python3 -m unittest discover -s out",
            "python3 -m unittest discover -s tests -t out",
            "python3 -m unittest discover tests -s .",
            "python3 -m unittest discover -s nowhere",
            "python3 -m unittest out.test_x",
            "python3 -m unittest.mock",
        ] {
            assert!(why(refused).is_some(), "accepted: {refused}");
        }
        std::os::unix::fs::symlink("../out", tmp.join("tests/more")).unwrap();
        assert!(why("python3 -m unittest discover -s tests").is_some());
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn review14_honest_tool_lines_stay_accepted() {
        for l in [
            "awk {print $1} result.txt",
            "awk $1~/a|b/{n++}END{exit!n} r.txt",
            "sed -n 1p",
            "sed -e s/a/b/g -e 1d f",
            "sed y/abc/xyz/",
            "jq -e .port src/config.json",
            "git diff --quiet",
            "make -s check",
            "prove --norc t/",
            "perl -MData::Dumper -e 1",
            "perl -e die g.pl",
            "python3 -I -m pytest -q",
            "python3 -I -m unittest graders/test_ok.py",
            "node -r ./setup.js g.js",
            "tar -tf a.tar",
            "node -e require(\"fs\");require(\"node:os\");require(\"./x\")",
        ] {
            assert_eq!(why(l), None, "refused: {l}");
        }
    }
}
