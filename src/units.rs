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
        assert!(
            parse_rate("nan").is_ok_and(f64::is_nan),
            "left to the range check"
        );
    }
}
