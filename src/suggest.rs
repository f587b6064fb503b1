//! "Did you mean …?": the nearest of the accepted spellings to one that was not accepted, for
//! subcommands (`gate rn` → `run`), plan keys (`timout` → `timeout`) and enum values (`fial`
//! → `fail`).
//!
//! Nearness is the optimal string alignment distance (Levenshtein plus the transposition of
//! two neighbours, the commonest typo), case-insensitive. A candidate is offered only when it
//! is within a third of the longer word's length (at least 1 edit), and only when it is the
//! one nearest: two equally near candidates are a guess, not a suggestion.

/// The optimal string alignment distance between `a` and `b` (by characters).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    // Three rows of the DP: two back for a transposition, one back, and the current one.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

/// The candidate nearest to `given`, when it is near enough and the only one that near.
pub fn closest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &'a str)> = None;
    let mut tied = false;
    for c in candidates {
        let d = distance(given, c);
        let limit = (given.chars().count().max(c.chars().count()) / 3).max(1);
        if d == 0 || d > limit {
            continue;
        }
        match best {
            Some((bd, _)) if d > bd => {}
            Some((bd, _)) if d == bd => tied = true,
            _ => {
                best = Some((d, c));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, c)| c)
}

/// For a deserialisation message such as ``unknown field `timout`, expected one of id, run,
/// timeout`` or ``unknown variant `fial`, expected `fail` or `pass` ``: "did you mean
/// `timeout`?", when one of the expected spellings is near the one given.
pub fn for_serde_message(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown variant `"))?;
    let (given, rest) = rest.split_once('`')?;
    let expected = rest.split_once("expected ")?.1;
    let expected = expected.strip_prefix("one of ").unwrap_or(expected);
    let names = expected
        .split([',', ' '])
        .map(|w| w.trim_matches('`'))
        .filter(|w| !w.is_empty() && *w != "or");
    closest(given, names).map(|near| format!("did you mean `{near}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits_and_a_swap_as_one() {
        assert_eq!(distance("run", "run"), 0);
        assert_eq!(distance("rn", "run"), 1);
        assert_eq!(distance("timout", "timeout"), 1);
        assert_eq!(distance("fial", "fail"), 1);
        assert_eq!(distance("desing", "design"), 1);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("Run", "run"), 0);
    }

    #[test]
    fn closest_offers_one_near_candidate_and_never_a_guess() {
        let commands = [
            "plan", "explain", "run", "ingest", "report", "verify", "init",
        ];
        assert_eq!(closest("rn", commands), Some("run"));
        assert_eq!(closest("verfy", commands), Some("verify"));
        assert_eq!(closest("deploy", commands), None);
        assert_eq!(closest("pas", ["fail", "pass"]), Some("pass"));
        // Equally near: no suggestion.
        assert_eq!(closest("ab", ["abc", "abd"]), None);
    }

    #[test]
    fn serde_messages_get_the_nearest_expected_spelling() {
        assert_eq!(
            for_serde_message(
                "unknown field `timout`, expected one of id, run, junit, check, timeout, env"
            )
            .as_deref(),
            Some("did you mean `timeout`?")
        );
        assert_eq!(
            for_serde_message("unknown variant `fial`, expected `fail` or `pass`").as_deref(),
            Some("did you mean `fail`?")
        );
        assert_eq!(
            for_serde_message(
                "unknown variant `desing`, expected one of single, sequential, design"
            )
            .as_deref(),
            Some("did you mean `design`?")
        );
        assert_eq!(
            for_serde_message("unknown field `zzzzzz`, expected one of id, run"),
            None
        );
        assert_eq!(for_serde_message("invalid type: string"), None);
    }
}
