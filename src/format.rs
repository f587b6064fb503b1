//! How numbers are shown: one helper per idea, used by every renderer.
//!
//! The one rule that matters for a gate: a probability that is not exactly 0 or 1 is never
//! printed as `0.0%` or `100.0%` (a 99.996% gate is not certain). Such a value gets a second
//! decimal, and below 0.01% (above 99.99%) it is printed as `< 0.01%` (`> 99.99%`).

/// A ratio or a number of points in words: at most two decimals, without trailing zeros
/// (3, 2.5, 2.25).
pub fn short_ratio(r: f64) -> String {
    let two = format!("{r:.2}");
    two.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A probability as a percentage: one decimal, two when one would show a probability that
/// is neither 0 nor 1 as `0.0%` or `100.0%`, else `< 0.01%` / `> 99.99%`. `n/a` for NaN.
pub fn percent(x: f64) -> String {
    if x.is_nan() {
        return "n/a".to_string();
    }
    if x <= 0.0 {
        return "0.0%".to_string();
    }
    if x >= 1.0 {
        return "100.0%".to_string();
    }
    strictly_between(x)
}

/// A probability known to be strictly between 0 and 1 — even where floating point has
/// rounded it to 1.0, as `1 - 0.1^101` is — as a percentage that never reads 0% or 100%.
pub fn percent_uncertain(x: f64) -> String {
    if x.is_nan() {
        return "n/a".to_string();
    }
    strictly_between(x.clamp(f64::MIN_POSITIVE, 1.0))
}

fn strictly_between(x: f64) -> String {
    for decimals in 1..=2 {
        let s = format!("{:.*}", decimals, x * 100.0);
        let shown: f64 = s.parse().unwrap_or(f64::NAN);
        if shown > 0.0 && shown < 100.0 {
            return format!("{s}%");
        }
    }
    if x < 0.5 {
        "< 0.01%".to_string()
    } else {
        "> 99.99%".to_string()
    }
}

/// Two probabilities to compare (a realised risk against the requested one), with as many
/// decimals (up to six) as it takes to show that they differ: 1.0009% against 1.0%.
pub fn percent_apart(x: f64, y: f64) -> (String, String) {
    for decimals in 1..=6 {
        let (a, b) = (
            format!("{:.*}", decimals, x * 100.0),
            format!("{:.*}", decimals, y * 100.0),
        );
        if a != b || decimals == 6 {
            return (format!("{a}%"), format!("{b}%"));
        }
    }
    unreachable!("the loop returns at six decimals")
}

/// A rate the user gave, as a percentage without trailing zeros: 0.9 → "90%", 0.995 → "99.5%".
pub fn rate(p: f64) -> String {
    let s = format!("{:.6}", p * 100.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "0" && p != 0.0 {
        return format!("{}%", num(p * 100.0));
    }
    format!("{s}%")
}

/// A number as the user would type it: plain decimals in the usual range, exponent notation
/// for the very small or large (Rust's `{}` would print 1e-300 with 300 zeros). Both forms
/// read back as YAML floats.
pub fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e15).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// The indifference zone in one line: "between 70% and 90% the verdict can go either way: at
/// 80.4% it passes half the time". The edges are rates the user gave (`stated`) or computed
/// ones (one decimal); the half-way rate is always computed.
pub fn zone_line(zone: &crate::stats::zone::Zone, stated: bool) -> String {
    let edge = |p: f64| {
        if stated {
            rate(p)
        } else {
            format!("{:.1}%", p * 100.0)
        }
    };
    let (lo, hi) = (edge(zone.lo), edge(zone.hi));
    // One decimal, more when the zone is so narrow that one would print an edge again.
    let half = (1..=4)
        .map(|d| format!("{:.*}%", d, zone.half * 100.0))
        .find(|h| *h != lo && *h != hi)
        .unwrap_or_else(|| format!("{:.4}%", zone.half * 100.0));
    // A rule whose risks miss the request can pass half the time outside its own rates:
    // say so rather than print a rate outside the zone as if it were inside.
    if zone.half > zone.hi {
        format!(
            "between {lo} and {hi} the verdict can go either way, and above: it passes only half \
             the time at {half}, above {hi}"
        )
    } else if zone.half < zone.lo {
        format!(
            "between {lo} and {hi} the verdict can go either way, and below: it still passes \
             half the time at {half}, below {lo}"
        )
    } else {
        format!(
            "between {lo} and {hi} the verdict can go either way: at {half} it passes half the time"
        )
    }
}

/// The one line that says which walls of the box stood around a run's trials, e.g.
/// `landlock ABI 7 — mounts: gate state read-only, filesystem enforced, signals scoped,
/// abstract unix sockets scoped, path unix sockets reachable; CI files and tokens withheld
/// from the task's environment and gate's /proc environ (a parent process's is readable)`.
pub fn sandbox(w: &crate::model::Walls) -> String {
    use crate::model::{FilesystemWall, MountWall, SandboxMode, SignalWall};
    let mut env = if w.pass_env.is_empty() {
        "CI files and tokens withheld".to_string()
    } else {
        format!(
            "CI files and tokens withheld except {}",
            w.pass_env.join(", ")
        )
    };
    // Withheld from the task's environment; a task can still read a process's environment
    // in /proc: gate's own unless gate erased it, and a parent's (the CI step's shell) always.
    env.push_str(if w.environ_erased && w.pid_namespace {
        // The trial's own /proc hides gate's parents, where the kernel let it be mounted.
        " from the task's environment and gate's /proc environ (a parent process's may be readable)"
    } else if w.environ_erased {
        " from the task's environment and gate's /proc environ (a parent process's is readable)"
    } else {
        " from the task's environment only (gate's /proc environ readable)"
    });
    let processes = if w.pid_namespace {
        ", every descendant dies with its trial (PID namespace)"
    } else {
        ", detached processes killed by gate's bounded orphan sweep"
    };
    let processes = format!(
        "{processes}{}",
        match w.shm {
            crate::model::ShmWall::Unknown => "",
            crate::model::ShmWall::Private => ", a private /dev/shm and IPC per trial process",
            crate::model::ShmWall::Shared => ", /dev/shm and IPC shared between trials",
            crate::model::ShmWall::Withheld => {
                ", /dev/shm not writable (compare without a mount layer), IPC shared between trials"
            }
        }
    );
    let sockets = if w.sockets_scoped {
        "abstract unix sockets scoped, path unix sockets reachable"
    } else {
        "unix sockets outside the box reachable"
    };
    let signals = match w.signals {
        SignalWall::Scoped => "signals scoped",
        SignalWall::Filtered => "signals filtered (seccomp)",
        SignalWall::Unguarded => "signals unguarded",
    };
    let fs = match (w.filesystem, w.mounts) {
        (FilesystemWall::Enforced, MountWall::StateReadOnly) => {
            "mounts: gate state read-only, filesystem enforced"
        }
        (FilesystemWall::EnforcedExceptTruncate, MountWall::StateReadOnly) => {
            "mounts: gate state read-only, filesystem enforced except truncate outside gate state"
        }
        // Name what lost its read-only bind: the other files of those folders are writable.
        (FilesystemWall::Enforced, MountWall::None) => {
            "filesystem: landlock allow-list (mount layer unavailable: the plan, ledger, report \
             and binary folders have no read-only wall, only gate's files and YAML in them are \
             kept; no new files there)"
        }
        (FilesystemWall::EnforcedExceptTruncate, MountWall::None) => {
            "filesystem: landlock allow-list (mount layer unavailable: the plan, ledger, report \
             and binary folders have no read-only wall, only gate's files and YAML in them are \
             kept; no new files there), except truncate"
        }
        (FilesystemWall::Unconfined, _) => "filesystem unconfined",
    };
    let required = if w.policy == SandboxMode::Required {
        " (required)"
    } else {
        ""
    };
    // Said only where the plan widened it: by default no new package name may be added
    // beside a node check's packages.
    match &w.installs {
        crate::model::Installs::None => {}
        // Each name a code span: `__init__` or `~~x` is Markdown in the step summary
        // (review 62, 15); a name holds no backtick (`package_name_fault`).
        crate::model::Installs::Names(names) => env.push_str(&format!(
            "; a trial may install {} beside a node check's packages (`policy.sandbox.installs`)",
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        crate::model::Installs::Any => env.push_str(
            "; a trial may install any package beside a node check's packages but one a \
             package there writes by name (`policy.sandbox.installs: any`: a name a package \
             builds at run time is not seen)",
        ),
    }
    // Said only where a task narrowed it: by default the trials write their whole folder.
    if !w.writes.is_empty() {
        let mut folders: Vec<String> = (w.writes.values().flatten())
            // Read back from a ledger, so kept to the characters a plan may use (a Markdown
            // report prints this line as it is).
            .map(|f| {
                f.chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || "-_.+@/".contains(c) {
                            c
                        } else {
                            '?'
                        }
                    })
                    .collect()
            })
            .collect();
        folders.sort();
        folders.dedup();
        let tasks = plural(w.writes.len() as u64, "task", "tasks");
        env.push_str(&if folders.is_empty() {
            format!(
                "; the trials of {tasks} may write nothing in their task's folder (`writes: []`)"
            )
        } else {
            let listed = (folders.iter().map(|f| format!("`{f}`"))).collect::<Vec<_>>();
            format!(
                "; the trials of {tasks} may write only {} in their task's folder (`writes:`), \
                 the rest of it read-only",
                listed.join(", ")
            )
        });
    }
    match (w.policy, w.filesystem) {
        (SandboxMode::Off, _) => {
            format!("off (`policy.sandbox: off`) — the task ran unconfined; {env}")
        }
        (_, FilesystemWall::Unconfined) if w.signals == SignalWall::Unguarded => {
            format!("unavailable on this kernel — the task ran unconfined; {env}")
        }
        (_, FilesystemWall::Unconfined) => {
            format!(
                "no Landlock on this kernel — filesystem unconfined, {signals}, {sockets}; {env}"
            )
        }
        _ => format!(
            "landlock ABI {}{required} — {fs}, {signals}, {sockets}{processes}; {env}",
            w.landlock_abi
        ),
    }
}

/// `n` and a noun, singular for one: `1 failure`, `2 failures`, `0 trials`. `many` is the
/// plural, spelt out (`passes`, not a suffix rule).
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_zone_line_never_prints_the_half_rate_as_an_edge() {
        use crate::stats::zone::Zone;
        let z = Zone {
            lo: 0.998,
            hi: 0.999,
            half: 0.99851,
        };
        assert_eq!(
            zone_line(&z, true),
            "between 99.8% and 99.9% the verdict can go either way: at 99.85% it passes half the time"
        );
        let z = Zone {
            lo: 0.7,
            hi: 0.9,
            half: 0.7999278,
        };
        assert!(zone_line(&z, true).ends_with("at 80.0% it passes half the time"));
        let z = Zone {
            lo: 0.7,
            hi: 0.9,
            half: 0.926,
        };
        assert!(zone_line(&z, true).ends_with("it passes only half the time at 92.6%, above 90%"));
    }

    #[test]
    fn percent_never_rounds_an_uncertain_probability_to_certainty() {
        assert_eq!(percent(0.999875), "99.99%");
        assert_eq!(percent(0.999), "99.9%");
        assert_eq!(percent(0.0399), "4.0%");
        assert_eq!(percent(0.0004), "0.04%");
        assert_eq!(percent(1e-9), "< 0.01%");
        assert_eq!(percent(1.0 - 1e-9), "> 99.99%");
        assert_eq!(percent(0.0), "0.0%");
        assert_eq!(percent(1.0), "100.0%");
        assert_eq!(percent(f64::NAN), "n/a");
    }

    #[test]
    fn explain_retries_100_is_not_certain() {
        // pass@101 at 90%: 1 - 0.1^101 is 1.0 in floating point, but not in fact.
        let x = 1.0 - 0.1f64.powi(101);
        assert_eq!(x, 1.0);
        assert_eq!(percent_uncertain(x), "> 99.99%");
        assert_eq!(percent_uncertain(0.5), "50.0%");
        assert_eq!(percent_uncertain(0.0), "< 0.01%");
    }

    #[test]
    fn realised_and_requested_risks_are_shown_apart() {
        assert_eq!(
            percent_apart(0.010009, 0.01),
            ("1.001%".to_string(), "1.000%".to_string())
        );
        assert_eq!(
            percent_apart(0.2, 0.1),
            ("20.0%".to_string(), "10.0%".to_string())
        );
    }

    #[test]
    fn rates_and_numbers_read_naturally() {
        assert_eq!(rate(0.9), "90%");
        assert_eq!(rate(0.995), "99.5%");
        assert_eq!(rate(1e-10), "1e-8%");
        assert_eq!(num(0.05), "0.05");
        assert_eq!(num(1e-300), "1e-300");
        assert_eq!(num(0.0), "0");
    }
}
