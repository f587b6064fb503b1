//! Redaction: secrets never reach the ledger, the logs or the reports.
//!
//! Two sources: the values of environment variables whose names contain TOKEN, SECRET, KEY
//! or PASSWORD (in gate's own environment and in each task's `env:`), and the plan's
//! `policy.redact` regular expressions. Both are replaced by `***` before anything is stored.
//!
//! A literal secret is also redacted in its common encodings, since a task that prints
//! `base64 <<< "$TOKEN"` leaks it just as well: base64 (standard and URL-safe alphabets,
//! each of the three alignments the secret can have inside a longer encoded text, so only
//! the characters that depend on the secret's bytes alone) and hexadecimal (lower and upper
//! case). Other transformations (reversed, spaced out, other encodings) are not recognised.

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
            .flat_map(|(_, v)| encodings(v))
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

/// Shortest encoded form worth redacting: a shorter base64 core would match ordinary text.
const MIN_ENCODED_LEN: usize = 8;

/// `secret` and the forms of it a task could print instead (see the module doc).
fn encodings(secret: &str) -> Vec<String> {
    let bytes = secret.as_bytes();
    let mut out = vec![secret.to_string()];
    for alphabet in [BASE64_STD, BASE64_URL] {
        for shift in 0..3 {
            // Encode the secret as it would sit after `shift` other bytes, and keep the
            // characters made of the secret's bits only.
            let mut padded = vec![0u8; shift];
            padded.extend_from_slice(bytes);
            let enc = base64(&padded, alphabet);
            let first = (8 * shift).div_ceil(6);
            let last = (8 * (shift + bytes.len())) / 6;
            if last > first && last - first >= MIN_ENCODED_LEN {
                out.push(enc[first..last].to_string());
            }
        }
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    out.push(hex.to_ascii_uppercase());
    out.push(hex);
    out
}

const BASE64_STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `bytes` in base64 without padding.
fn base64(bytes: &[u8], alphabet: &[u8; 64]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(alphabet[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
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
        // The longest form is the hexadecimal one.
        assert_eq!(r2.longest_literal(), 2 * "sk-abcdef123".len());
    }

    #[test]
    fn base64_of_a_secret_gets_past_redaction() {
        // Issue 29, break 4: only the verbatim value was redacted.
        let secret = "ghs_16C7e42F292c6912E7710c838347Ae178B4a";
        let r = Redactor::new([("GITHUB_TOKEN", secret)], Vec::new());
        for prefix in ["", "a", "ab", "abc", "token: "] {
            let text = format!("{prefix}{secret}\n");
            for alphabet in [BASE64_STD, BASE64_URL] {
                let enc = base64(text.as_bytes(), alphabet);
                let out = r.apply(&format!("leak {enc} end"));
                let core = &base64(secret.as_bytes(), alphabet)[..16];
                assert!(out.contains("***"), "{prefix:?}: {out}");
                assert!(!out.contains(core), "{prefix:?}: {out}");
            }
        }
        let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
        assert_eq!(r.apply(&hex), "***");
        assert_eq!(r.apply(&hex.to_uppercase()), "***");
        // Ordinary text stays.
        assert_eq!(r.apply("PASS 3/3 in 0.2s"), "PASS 3/3 in 0.2s");
        // Matches what coreutils' base64 prints.
        assert_eq!(base64(b"hello!?", BASE64_STD), "aGVsbG8hPw");
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
