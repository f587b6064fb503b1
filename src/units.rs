//! Rates and durations as people write them, parsed once for the command line and plan files.
//!
//! A rate is a fraction (`0.9`) or a percentage (`90%`); a duration is a bare number of seconds
//! (`7`, `1.5`) or a humantime expression (`500ms`, `1m30s`, `2h`). The plan loader and clap
//! both call these functions, so `--healthy 90%` and `healthy: 90%` mean the same thing.

use std::time::Duration;

/// The longest duration a plan may give (7 days): longer is a typo, and would overflow
/// deadline arithmetic long before it meant anything in CI.
pub const MAX_DURATION: Duration = Duration::from_secs(7 * 24 * 3600);

/// What a duration may look like, for error messages.
pub const DURATION_FORMS: &str =
    "a duration such as `500ms`, `30s`, `1m30s`, `2h` or a number of seconds, at most 168h";

/// What a rate may look like, for error messages.
pub const RATE_FORMS: &str = "a fraction such as `0.9` or a percentage such as `90%`";

/// Parse a rate: a number (`0.9`) or a percentage (`90%`, `99.5 %`), returned as a fraction.
///
/// Range checks (rates in (0, 1), risks in (0, 0.5), and so NaN or infinity) belong to the
/// statistics, which name the parameter; here only the spelling is checked.
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let (number, scale) = match t.strip_suffix('%') {
        Some(n) => (n.trim_end(), 100.0),
        None => (t, 1.0),
    };
    number
        .parse::<f64>()
        .ok()
        .map(|v| v / scale)
        .ok_or_else(|| format!("invalid rate `{s}`: expected {RATE_FORMS}"))
}

/// The parameters that are rates or risks: fractions, which people also write as percentages.
const FRACTIONS: &[&str] = &[
    "healthy",
    "regressed",
    "alpha",
    "beta",
    "base",
    "head",
    "suite_alpha",
    "unavailable_rate",
];

/// A number shown as briefly as it reads: `90`, `0.9`, `0.009` (no float noise).
fn short(v: f64) -> String {
    let s = format!("{v:.10}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// The suggestion appended to an out-of-range rate or risk that reads as a percentage written
/// without its `%` (`--healthy 90`, `alpha: 5`): `; did you mean `90%` or `0.9`?`. Empty
/// for other parameters and other values.
pub fn percent_hint(name: &str, value: f64) -> String {
    if FRACTIONS.contains(&name) && value.is_finite() && (1.0..100.0).contains(&value) {
        format!(
            "; did you mean `{}%` or `{}`?",
            short(value),
            short(value / 100.0)
        )
    } else {
        String::new()
    }
}

/// A note for a healthy or regressed rate below 1%, which is almost always a percentage
/// written as a fraction and a `%` (`0.9%` for 90%): says what was read and what was likely
/// meant. No CI gate tells a 0.9% agent from a 0.7% one (17,056 trials), so the value is
/// accepted but not silently.
pub fn small_rate_note(name: &str, value: f64) -> Option<String> {
    (value.is_finite() && value > 0.0 && value < 0.01).then(|| {
        format!(
            "`{name}` was read as {}% = {}; did you mean `{}%`?",
            short(value * 100.0),
            short(value),
            short(value * 10_000.0)
        )
    })
}

/// The warnings for the `--healthy` and `--regressed` flags of `gate plan`, `gate suite`
/// and `gate ingest` ([`small_rate_note`] for each one given), as lines for stderr.
pub fn flag_rate_warnings(healthy: Option<f64>, regressed: Option<f64>) -> Vec<String> {
    [("healthy", healthy), ("regressed", regressed)]
        .into_iter()
        .filter_map(|(name, value)| small_rate_note(&format!("--{name}"), value?))
        .map(|note| format!("warning: {note}"))
        .collect()
}

/// Parse a duration: a bare number of seconds (`7`, `1.5`) or a humantime expression
/// (`500ms`, `30s`, `1m30s`, `2h 5m`), up to [`MAX_DURATION`].
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let bad = || format!("invalid duration `{s}`: expected {DURATION_FORMS}");
    let d = if t.chars().all(|c| c.is_ascii_digit() || c == '.') {
        t.parse::<f64>()
            .ok()
            .and_then(|v| Duration::try_from_secs_f64(v).ok())
            .ok_or_else(bad)?
    } else {
        humantime::parse_duration(t).map_err(|_| bad())?
    };
    if d > MAX_DURATION {
        return Err(bad());
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_every_spelling() {
        let ok = |s: &str| parse_duration(s).ok();
        assert_eq!(ok("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(ok("30s"), Some(Duration::from_secs(30)));
        assert_eq!(ok("2m"), Some(Duration::from_secs(120)));
        assert_eq!(ok("1m30s"), Some(Duration::from_secs(90)));
        assert_eq!(ok("1h 5m"), Some(Duration::from_secs(3900)));
        assert_eq!(ok("1h"), Some(Duration::from_secs(3600)));
        assert_eq!(ok("1.5"), Some(Duration::from_millis(1500)));
        assert_eq!(ok("7"), Some(Duration::from_secs(7)));
        assert_eq!(ok("fast"), None);
        assert_eq!(ok("3x"), None);
        assert_eq!(ok("168h"), Some(MAX_DURATION));
        assert_eq!(ok("169h"), None);
        assert_eq!(ok("18000000000000000000"), None);
        assert_eq!(ok(""), None);
        assert_eq!(ok("."), None);
    }

    #[test]
    fn rates_as_fractions_or_percentages() {
        assert_eq!(parse_rate("0.9"), Ok(0.9));
        assert_eq!(parse_rate("90%"), Ok(0.9));
        assert_eq!(parse_rate(" 99.5 % "), Ok(0.995));
        assert_eq!(parse_rate("5%"), Ok(0.05));
        assert!(parse_rate("ninety").unwrap_err().contains("`90%`"));
        assert!(parse_rate("%").is_err());
        assert!(parse_rate("0.9%").is_ok_and(|v| (v - 0.009).abs() < 1e-15));
        assert!(
            parse_rate("nan").is_ok_and(f64::is_nan),
            "left to the range check"
        );
    }

    #[test]
    fn a_rate_written_as_a_bare_percentage_gets_a_suggestion() {
        assert_eq!(
            percent_hint("healthy", 90.0),
            "; did you mean `90%` or `0.9`?"
        );
        assert_eq!(percent_hint("alpha", 5.0), "; did you mean `5%` or `0.05`?");
        assert_eq!(
            percent_hint("healthy", 1.5),
            "; did you mean `1.5%` or `0.015`?"
        );
        assert_eq!(percent_hint("healthy", 100.0), "");
        assert_eq!(percent_hint("healthy", -0.2), "");
        assert_eq!(percent_hint("max_trials", 90.0), "", "not a rate");
    }

    #[test]
    fn a_rate_below_one_percent_says_what_was_read() {
        assert_eq!(
            small_rate_note("healthy", 0.009).as_deref(),
            Some("`healthy` was read as 0.9% = 0.009; did you mean `90%`?")
        );
        assert_eq!(small_rate_note("healthy", 0.01), None);
        assert_eq!(small_rate_note("healthy", 0.9), None);
    }
}
