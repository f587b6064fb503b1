//! The per-file record cap ([`super::MAX_CASES_PER_FILE`]) for the JSON readers, counted while
//! the JSON is parsed. The JUnit reader counts `<testcase>`s as it streams; a JSON report is
//! deserialised whole, so without a count inside the parse a 64 MiB Vitest report of 1.9
//! million tiny tests was held in full (3.27 GB at peak) before anything could refuse it
//! (review 47, c10). Every list of records a JSON reader reads is a [`Capped`] list, which
//! counts its elements as they are parsed into a per-file tally shared by the lists of one
//! kind ([`Tests`], [`Groups`], [`Listed`]), and fails the parse at the element past the cap,
//! before it is kept. [`from_str`] is the one way in: it starts each file's tallies at zero.

use std::cell::Cell;
use std::marker::PhantomData;

use serde::Deserialize;

thread_local! {
    /// Elements read so far in the file being parsed, per [`Kind::SLOT`]. Thread-local because
    /// serde's derived impls pass no state down; a parse never leaves the thread.
    static TALLY: [Cell<u64>; 4] = const { [Cell::new(0), Cell::new(0), Cell::new(0), Cell::new(0)] };
    /// Set when the parse failed at the cap, so the reader reports the cap (a refusal of a
    /// well-formed file) and not "not a report of this kind".
    static OVER: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Which tally a list adds to, and what its refusal calls the records.
pub trait Kind {
    /// The tally's index.
    const SLOT: usize;
    /// The records, as the refusal names them.
    const WHAT: &'static str;
    /// The most a file may hold.
    const MAX: u64 = super::MAX_CASES_PER_FILE;
}

/// Test records: Jest/Vitest `assertionResults[]`, mocha `tests[]`, Playwright `tests[]`,
/// Inspect's (sample, epoch) records, promptfoo and DeepEval rows.
pub struct Tests;
impl Kind for Tests {
    const SLOT: usize = 0;
    const WHAT: &'static str = "test";
}

/// Records that hold tests (Jest/Vitest files, Playwright suites and specs) or list them
/// again (Inspect's `sample_ids` and reductions): cheap each, but a file of millions of empty
/// ones costs as much as millions of tests.
pub struct Groups;
impl Kind for Groups {
    const SLOT: usize = 1;
    const WHAT: &'static str = "test file, suite or sample-list";
}

/// Mocha's `passes[]`, `failures[]` and `pending[]`, which list `tests[]` again (each test in
/// one of them): counted apart from `tests[]`, so a suite just under the cap is not refused
/// for being listed twice.
pub struct Listed;
impl Kind for Listed {
    const SLOT: usize = 2;
    const WHAT: &'static str = "`passes`, `failures` and `pending`";
}

/// Playwright's `results[]`: one per test plus one per retry, so as many as the file's tests
/// and its attempts after the first may be ([`super::MAX_RETRIES_PER_FILE`], which
/// [`super::spend_retries`] holds the retries to once they are read): bounded here while
/// parsing, that per-file cap then says which it was.
pub struct Results;
impl Kind for Results {
    const SLOT: usize = 3;
    const WHAT: &'static str = "Playwright `results[]`";
    const MAX: u64 = super::MAX_CASES_PER_FILE + super::MAX_RETRIES_PER_FILE;
}

/// A JSON list whose elements count towards the file's [`Kind`] tally; the parse fails at the
/// element past its [`Kind::MAX`] (for most, [`super::MAX_CASES_PER_FILE`]).
pub struct Capped<T, K: Kind>(pub Vec<T>, PhantomData<K>);

impl<T, K: Kind> Default for Capped<T, K> {
    fn default() -> Self {
        Capped(Vec::new(), PhantomData)
    }
}

impl<T, K: Kind> std::ops::Deref for Capped<T, K> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T, K: Kind> std::ops::DerefMut for Capped<T, K> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T, K: Kind> IntoIterator for Capped<T, K> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a, T, K: Kind> IntoIterator for &'a Capped<T, K> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// The refusal of a file holding more than `max` records of `what`: one wording for JUnit's
/// `<testcase>`s and every JSON reader's lists.
pub fn too_many(what: &str, max: u64) -> String {
    format!(
        "more than {max} {what} records in one file; gate reads at most that many from a result \
         file (docs/ingest.md, \"Bounds\"): split the suite's report, or judge a selection of it"
    )
}

impl<'de, T: Deserialize<'de>, K: Kind> Deserialize<'de> for Capped<T, K> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Counting<T, K>(PhantomData<(T, K)>);
        impl<'de, T: Deserialize<'de>, K: Kind> serde::de::Visitor<'de> for Counting<T, K> {
            type Value = Capped<T, K>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                loop {
                    // Counted before the element is parsed: the one past the cap is never built.
                    let over = TALLY.with(|t| {
                        let n = t[K::SLOT].get();
                        n >= K::MAX
                    });
                    if over {
                        // Whether another element follows decides it; an ignored one is cheap.
                        if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                            OVER.with(|o| o.set(Some(K::WHAT)));
                            return Err(serde::de::Error::custom(too_many(K::WHAT, K::MAX)));
                        }
                        break;
                    }
                    match seq.next_element::<T>()? {
                        Some(v) => {
                            TALLY.with(|t| t[K::SLOT].set(t[K::SLOT].get() + 1));
                            out.push(v);
                        }
                        None => break,
                    }
                }
                Ok(Capped(out, PhantomData))
            }
        }
        d.deserialize_seq(Counting(PhantomData))
    }
}

/// Parse one result file's JSON with its tallies started at zero: the one entry for every
/// type that holds a [`Capped`] list, so that one file's count never carries into the next.
pub fn from_str<'a, T: Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    TALLY.with(|t| t.iter().for_each(|c| c.set(0)));
    OVER.with(|o| o.set(None));
    serde_json::from_str(text)
}

/// [`from_str`] for a document some of whose records were read outside this parse and
/// already counted (`tests` of [`Tests`]): promptfoo's streamed `results.json`, whose rows are
/// parsed one by one and whose skeleton, parsed here, still holds rows when the file spells
/// its keys with escapes. Every tally starts at zero but that one, so the skeleton's rows are
/// counted with the streamed ones and nothing of the previous file carries in (review 49:
/// the skeleton was parsed outside this module, from whatever tally the last file left).
pub fn from_slice_after<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    tests: u64,
) -> serde_json::Result<T> {
    TALLY.with(|t| {
        t.iter().for_each(|c| c.set(0));
        t[Tests::SLOT].set(tests);
    });
    OVER.with(|o| o.set(None));
    serde_json::from_slice(bytes)
}

/// How to word a failed [`from_str`]: the cap's refusal when the file was refused at it
/// (its position is the error's), else `otherwise(e)`.
pub fn reason(
    e: &serde_json::Error,
    otherwise: impl FnOnce(&serde_json::Error) -> String,
) -> String {
    match OVER.with(Cell::get) {
        Some(_) => e
            .to_string()
            .rsplit_once(" at line ")
            .map_or_else(|| e.to_string(), |(m, _)| m.to_string()),
        None => otherwise(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Two {
        a: Capped<u8, Tests>,
        b: Capped<u8, Tests>,
    }

    #[test]
    fn the_tally_is_per_file_and_shared_by_lists_of_a_kind() {
        let cap = super::super::MAX_CASES_PER_FILE as usize;
        let half = |n: usize| vec!["0"; n].join(",");
        let at = format!(
            r#"{{"a":[{}],"b":[{}]}}"#,
            half(cap / 2),
            half(cap - cap / 2)
        );
        let two: Two = from_str(&at).expect("just at the cap");
        assert_eq!(two.a.len() + two.b.len(), cap);
        // The same again: a new file starts at zero.
        from_str::<Two>(&at).expect("a second file at the cap");
        let over = format!(
            r#"{{"a":[{}],"b":[{}]}}"#,
            half(cap / 2),
            half(cap - cap / 2 + 1)
        );
        let e = from_str::<Two>(&over).err().expect("one past the cap");
        assert!(
            e.to_string().contains("more than 200000 test records"),
            "{e}"
        );
    }

    #[test]
    fn a_document_read_after_another_starts_from_its_own_count() {
        // A file at the cap leaves the tally there; the next document, parsed with the
        // records it already counted, starts from those and not from the last file's.
        let cap = super::super::MAX_CASES_PER_FILE as usize;
        let at = format!(r#"{{"a":[{}],"b":[]}}"#, vec!["0"; cap].join(","));
        from_str::<Two>(&at).expect("at the cap");
        let two: Two = from_slice_after(br#"{"a":[1,2],"b":[3]}"#, 0).expect("a new document");
        assert_eq!(two.a.len() + two.b.len(), 3);
        // Its own count does carry: records read outside the parse, then the parse's.
        from_slice_after::<Two>(br#"{"a":[1],"b":[]}"#, cap as u64 - 1).expect("just at the cap");
        let e = from_slice_after::<Two>(br#"{"a":[1],"b":[2]}"#, cap as u64 - 1)
            .err()
            .expect("one past the cap");
        assert!(
            e.to_string().contains("more than 200000 test records"),
            "{e}"
        );
    }
}
