//! Redaction: secrets never reach the ledger, the logs or the reports.
//!
//! Two sources: the values of environment variables whose names contain TOKEN, SECRET, KEY
//! or PASSWORD (in gate's own environment and in each task's `env:`), and the plan's
//! `policy.redact` regular expressions. Both are replaced by `***` before anything is stored.

use regex::Regex;

/// Replaces secrets with `***`.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    literals: Vec<String>,
    patterns: Vec<Regex>,
}

/// Substrings of an environment variable name that mark its value as a secret.
const SECRET_MARKERS: [&str; 4] = ["TOKEN", "SECRET", "KEY", "PASSWORD"];

/// Values shorter than this are not redacted as literals: replacing every `1`, `on` or `dev`
/// in the output would destroy the logs while protecting nothing a person would call a secret.
pub const MIN_SECRET_LEN: usize = 6;

/// Values too common to be secrets, compared without case: `USE_KEYRING=true` must not blank
/// every `true` in every log.
const COMMON_VALUES: [&str; 12] = [
    "true", "false", "yes", "no", "on", "off", "null", "none", "enabled", "disabled", "enable",
    "disable",
];

/// Whether an environment value is plausible as a secret: long enough, not a common word,
/// and not a short number (a port, a count, a version).
pub fn could_be_secret(value: &str) -> bool {
    let v = value.trim();
    if v.len() < MIN_SECRET_LEN || COMMON_VALUES.iter().any(|c| v.eq_ignore_ascii_case(c)) {
        return false;
    }
    let numeric = v
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | '_'));
    // Ten digits and more (account numbers, PINs written long) are kept as secrets.
    !(numeric && v.len() < 10)
}

impl Redactor {
    /// A redactor for the given environment variables and patterns.
    pub fn new<'a>(
        env: impl IntoIterator<Item = (&'a str, &'a str)>,
        patterns: Vec<Regex>,
    ) -> Self {
        let mut literals: Vec<String> = env
            .into_iter()
            .filter(|(name, value)| {
                let upper = name.to_ascii_uppercase();
                SECRET_MARKERS.iter().any(|m| upper.contains(m)) && could_be_secret(value)
            })
            .map(|(_, v)| v.to_string())
            .collect();
        // Longest first, so a secret that contains another is replaced whole.
        literals.sort_by_key(|s| std::cmp::Reverse(s.len()));
        literals.dedup();
        Redactor { literals, patterns }
    }

    /// The redactor of gate's own environment plus `patterns` (`policy.redact`).
    pub fn of_process_env(patterns: Vec<Regex>) -> Self {
        let env: Vec<(String, String)> = std::env::vars().collect();
        Redactor::new(env.iter().map(|(k, v)| (k.as_str(), v.as_str())), patterns)
    }

    /// Gate's own command line, redacted (the ledger's header keeps it).
    pub fn argv(&self) -> Vec<String> {
        std::env::args().map(|a| self.apply(&a)).collect()
    }

    /// Add the secrets among some more environment variables (a task's `env:`).
    pub fn with_env<'a>(&self, env: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let extra = Redactor::new(env, Vec::new());
        let mut literals = self.literals.clone();
        literals.extend(extra.literals);
        literals.sort_by_key(|s| std::cmp::Reverse(s.len()));
        literals.dedup();
        Redactor {
            literals,
            patterns: self.patterns.clone(),
        }
    }

    /// Bytes of the longest literal secret (0 when there is none): output captures keep at
    /// least this much beyond each cut so a secret is redacted before it is cut.
    pub fn longest_literal(&self) -> usize {
        self.literals.first().map_or(0, String::len)
    }

    /// The text with every secret replaced by `***`.
    pub fn apply(&self, text: &str) -> String {
        let mut out = text.to_string();
        for lit in &self.literals {
            if out.contains(lit.as_str()) {
                out = out.replace(lit.as_str(), "***");
            }
        }
        for re in &self.patterns {
            if re.is_match(&out) {
                out = re.replace_all(&out, "***").into_owned();
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_by_name_and_pattern() {
        let r = Redactor::new(
            [
                ("OPENAI_API_KEY", "sk-abcdef123"),
                ("GITHUB_TOKEN", "ghp_zzzz"),
                ("db_password", "hunter22"),
                ("HOME", "/root"),
                ("SHORT_KEY", "ab"),
            ],
            vec![Regex::new(r"acct-\d+").unwrap()],
        );
        assert_eq!(
            r.apply("key=sk-abcdef123 tok=ghp_zzzz pw=hunter22 home=/root ab acct-991"),
            "key=*** tok=*** pw=*** home=/root ab ***"
        );
        let r2 = r.with_env([("MY_SECRET", "s3cr3t!")]);
        assert_eq!(r2.apply("x s3cr3t! sk-abcdef123"), "x *** ***");
        assert_eq!(r2.longest_literal(), "sk-abcdef123".len());
    }

    #[test]
    fn common_values_are_not_redacted() {
        let r = Redactor::new(
            [
                ("USE_KEYRING", "true"),
                ("SKIP_TOKEN_CHECK", "False"),
                ("TOKEN_TTL", "3600"),
                ("KEY_PORT", "8080.5"),
                ("API_KEY_ENABLED", "enabled"),
                ("SHORT_SECRET", "abcde"),
                ("REAL_TOKEN", "ghp_realtoken1"),
                ("ACCOUNT_KEY", "1234567890123"),
            ],
            Vec::new(),
        );
        assert_eq!(
            r.apply("true False 3600 8080.5 enabled abcde ghp_realtoken1 1234567890123"),
            "true False 3600 8080.5 enabled abcde *** ***"
        );
    }
}
