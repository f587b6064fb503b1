//! JSON as Python writes it: `json.dumps` emits bare `NaN`, `Infinity` and `-Infinity`
//! (Inspect's JSON logs hold them where a metric had no value), which strict JSON readers
//! refuse. [`to_null`] rewrites those tokens outside strings to `null`, so a score that is
//! not a number reads as "no value" and never as a pass.

use std::borrow::Cow;

/// `text` with every bare `NaN`, `Infinity` and `-Infinity` outside a string replaced by
/// `null`. Lines stay where they were (a column after a replaced token on its line can move
/// by a few characters). Borrowed when there is none.
pub fn to_null(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    if !text.contains("NaN") && !text.contains("Infinity") {
        return Cow::Borrowed(text);
    }
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            out.push(b);
            if b == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1]);
                i += 2;
                continue;
            }
            if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            out.push(b);
            i += 1;
            continue;
        }
        let rest = &bytes[i..];
        let token = [&b"-Infinity"[..], b"Infinity", b"NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t));
        match token {
            Some(t) => {
                out.extend_from_slice(b"null");
                i += t.len();
            }
            None => {
                out.push(b);
                i += 1;
            }
        }
    }
    // Only ASCII was replaced by ASCII, at token boundaries outside strings.
    Cow::Owned(
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_nan_and_infinity_become_null_but_strings_keep_them() {
        let text = r#"{"a": NaN, "b": -Infinity, "c": "NaN \" Infinity", "d": [Infinity]}"#;
        let v: serde_json::Value = serde_json::from_str(&to_null(text)).expect("parses");
        assert!(v["a"].is_null() && v["b"].is_null() && v["d"][0].is_null());
        assert_eq!(v["c"], "NaN \" Infinity");
        assert!(matches!(to_null("{\"a\": 1}"), Cow::Borrowed(_)));
    }
}
