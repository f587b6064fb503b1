//! A large JSON document read from a stream, one element of one array at a time.
//!
//! promptfoo's `results.json` is a few kilobytes of header around one array (`.results.results`)
//! of rows that are each over a kilobyte, most of it prompt, output and grading text gate
//! does not judge. serde_json reading from a stream pulls each byte through `io::Read`, which
//! made that file 1.6 times as costly as the same number of JUnit records
//! (scripts/bench-ingest.sh). [`split`] instead scans the stream in blocks, hands each element
//! of the array at a key path to the caller as one slice (parsed there with the fast slice
//! reader), and keeps everything else (the *skeleton*: the document with that array left
//! empty) for a strict parse of its own. Every byte of the file is thus read by serde_json,
//! either in an element or in the skeleton, so nothing malformed passes; the scan itself only
//! tracks strings and nesting to find where the elements begin and end.
//!
//! Positions are those of the original file: [`Position::within`] maps a position inside an
//! element, [`Skeleton::original`] one inside the skeleton.

use std::io::BufRead;

/// A 1-based line and column (in bytes, as serde_json counts them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// 1-based line.
    pub line: u64,
    /// 1-based column.
    pub column: u64,
}

impl Position {
    /// The file position of `(line, column)` inside an element that starts here.
    pub fn within(self, line: u64, column: u64) -> Position {
        if line <= 1 {
            Position {
                line: self.line,
                column: self.column + column.saturating_sub(1),
            }
        } else {
            Position {
                line: self.line + line - 1,
                column,
            }
        }
    }
}

/// The document without the split array's elements.
pub struct Skeleton {
    /// The bytes, `[]` where the array was.
    pub bytes: Vec<u8>,
    /// Where the array's `]` is in the skeleton and in the file, when it was found.
    close: Option<(Position, Position)>,
}

impl Skeleton {
    /// The file position of `(line, column)` in the skeleton.
    pub fn original(&self, line: u64, column: u64) -> Position {
        let at = Position { line, column };
        match self.close {
            Some((skel, file)) if (line, column) >= (skel.line, skel.column) => {
                if line == skel.line {
                    Position {
                        line: file.line,
                        column: file.column + (column - skel.column),
                    }
                } else {
                    Position {
                        line: file.line + (line - skel.line),
                        column,
                    }
                }
            }
            _ => at,
        }
    }
}

/// Why a stream could not be split.
pub enum Error<E> {
    /// Reading failed.
    Io(std::io::Error),
    /// The array's structure is broken (what was expected, where).
    Syntax(&'static str, Position),
    /// The caller refused an element.
    Element(E),
}

/// One open container of the skeleton.
struct Frame {
    object: bool,
    /// The last key read in this object, raw (escapes kept).
    key: Vec<u8>,
    /// Whether the next string in this object is a key.
    expect_key: bool,
}

/// Where the scan is inside the split array.
#[derive(Clone, Copy, PartialEq)]
enum InArray {
    /// Before an element (`first`: right after `[`, where `]` may close it).
    Before { first: bool },
    /// Inside an element.
    Element {
        depth: u32,
        string: bool,
        escape: bool,
        /// A number or literal, which ends at the first delimiter.
        scalar: bool,
    },
    /// After an element, before `,` or `]`.
    After,
}

/// Line and column of a byte offset in the block being scanned, advanced monotonically so
/// that the newlines of the whole file are counted once, in bulk.
struct Cursor {
    pos: Position,
    /// Offset in the current block that `pos` is at.
    at: usize,
}

impl Cursor {
    fn advance(&mut self, block: &[u8], to: usize) -> Position {
        let span = &block[self.at..to];
        match memchr::memrchr(b'\n', span) {
            Some(last) => {
                self.pos.line += memchr::memchr_iter(b'\n', span).count() as u64;
                self.pos.column = (span.len() - last) as u64;
            }
            None => self.pos.column += span.len() as u64,
        }
        self.at = to;
        self.pos
    }
}

/// Scan `reader` to its end; call `each` with every element of the first array found at
/// `path` (a chain of object keys from the root, as written in the file) and the position it
/// starts at; return the rest of the document.
pub fn split<R: BufRead, E>(
    mut reader: R,
    path: &[&[u8]],
    mut each: impl FnMut(&[u8], Position) -> Result<(), E>,
) -> Result<Skeleton, Error<E>> {
    let mut skeleton = Vec::new();
    let mut close = None;
    let mut stack: Vec<Frame> = Vec::new();
    // Outside the array: whether in a string, after a backslash, and collecting a key.
    let (mut string, mut escape, mut key) = (false, false, false);
    let mut key_buf = Vec::new();
    let mut array: Option<InArray> = None;
    let mut done = false;
    let mut element = Vec::new();
    let mut element_at = Position { line: 1, column: 1 };
    let mut cursor = Cursor {
        pos: Position { line: 1, column: 1 },
        at: 0,
    };
    loop {
        let block = reader.fill_buf().map_err(Error::Io)?;
        if block.is_empty() {
            break;
        }
        let len = block.len();
        let mut i = 0;
        while i < len {
            let Some(state) = array else {
                // The skeleton, a byte at a time: it is small.
                let b = block[i];
                i += 1;
                if string {
                    if escape {
                        escape = false;
                    } else if b == b'\\' {
                        escape = true;
                    } else if b == b'"' {
                        string = false;
                        if key && let Some(top) = stack.last_mut() {
                            top.key = std::mem::take(&mut key_buf);
                            top.expect_key = false;
                        }
                    }
                    if string && key {
                        key_buf.push(b);
                    }
                    skeleton.push(b);
                    continue;
                }
                skeleton.push(b);
                match b {
                    b'"' => {
                        string = true;
                        key = stack.last().is_some_and(|f| f.object && f.expect_key);
                        key_buf.clear();
                    }
                    b'{' | b'[' => {
                        let target = b == b'['
                            && !done
                            && stack.len() == path.len()
                            && stack
                                .iter()
                                .zip(path)
                                .all(|(f, k)| f.object && !f.expect_key && f.key == *k);
                        if target {
                            array = Some(InArray::Before { first: true });
                        } else {
                            stack.push(Frame {
                                object: b == b'{',
                                key: Vec::new(),
                                expect_key: b == b'{',
                            });
                        }
                    }
                    b'}' | b']' => {
                        stack.pop();
                    }
                    b',' => {
                        if let Some(top) = stack.last_mut().filter(|f| f.object) {
                            top.expect_key = true;
                        }
                    }
                    _ => {}
                }
                continue;
            };
            match state {
                InArray::Before { .. } | InArray::After if block[i].is_ascii_whitespace() => {
                    i += 1;
                }
                InArray::Before { first: true } | InArray::After if block[i] == b']' => {
                    let file = cursor.advance(block, i);
                    close = Some((position_at_end(&skeleton), file));
                    skeleton.push(b']');
                    i += 1;
                    array = None;
                    done = true;
                }
                InArray::After if block[i] == b',' => {
                    i += 1;
                    array = Some(InArray::Before { first: false });
                }
                InArray::After => {
                    return Err(Error::Syntax(
                        "expected `,` or `]`",
                        cursor.advance(block, i),
                    ));
                }
                InArray::Before { .. } if matches!(block[i], b']' | b',') => {
                    return Err(Error::Syntax("expected a value", cursor.advance(block, i)));
                }
                InArray::Before { .. } => {
                    element.clear();
                    element_at = cursor.advance(block, i);
                    let b = block[i];
                    array = Some(InArray::Element {
                        depth: 0,
                        string: false,
                        escape: false,
                        scalar: !matches!(b, b'{' | b'[' | b'"'),
                    });
                }
                InArray::Element {
                    mut depth,
                    mut string,
                    mut escape,
                    scalar,
                } => {
                    let start = i;
                    let mut complete = false;
                    while i < len {
                        if escape {
                            escape = false;
                            i += 1;
                        } else if string {
                            // Most of an element is string: jump to its next quote or escape.
                            match memchr::memchr2(b'"', b'\\', &block[i..]) {
                                Some(j) => {
                                    i += j;
                                    if block[i] == b'\\' {
                                        escape = true;
                                    } else {
                                        string = false;
                                        if depth == 0 {
                                            complete = true;
                                            i += 1;
                                            break;
                                        }
                                    }
                                    i += 1;
                                }
                                None => i = len,
                            }
                        } else if scalar {
                            let b = block[i];
                            if b.is_ascii_whitespace() || b == b',' || b == b']' {
                                complete = true;
                                break;
                            }
                            i += 1;
                        } else {
                            let b = block[i];
                            i += 1;
                            match b {
                                b'"' => string = true,
                                b'{' | b'[' => depth += 1,
                                b'}' | b']' => {
                                    depth = depth.saturating_sub(1);
                                    if depth == 0 {
                                        complete = true;
                                        break;
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    element.extend_from_slice(&block[start..i]);
                    if complete {
                        each(&element, element_at).map_err(Error::Element)?;
                        array = Some(InArray::After);
                    } else {
                        array = Some(InArray::Element {
                            depth,
                            string,
                            escape,
                            scalar,
                        });
                    }
                }
            }
        }
        cursor.advance(block, len);
        cursor.at = 0;
        reader.consume(len);
    }
    match array {
        // A number as the last thing in the file ends at its end.
        Some(InArray::Element { scalar: true, .. }) => {
            each(&element, element_at).map_err(Error::Element)?;
            Err(Error::Syntax("EOF while parsing a list", cursor.pos))
        }
        Some(_) => Err(Error::Syntax("EOF while parsing a list", cursor.pos)),
        None => Ok(Skeleton {
            bytes: skeleton,
            close,
        }),
    }
}

/// The position right after the last byte of `bytes`.
fn position_at_end(bytes: &[u8]) -> Position {
    let mut c = Cursor {
        pos: Position { line: 1, column: 1 },
        at: 0,
    };
    c.advance(bytes, bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Split `text` at `.a.b`, with a block size of `block` bytes.
    fn run(text: &str, block: usize) -> Result<(Vec<String>, Vec<Position>, String), String> {
        let reader = std::io::BufReader::with_capacity(block, text.as_bytes());
        let mut elements = Vec::new();
        let mut starts = Vec::new();
        let skeleton = split(reader, &[b"a", b"b"], |e, at| {
            elements.push(String::from_utf8(e.to_vec()).map_err(|_| ())?);
            starts.push(at);
            Ok::<_, ()>(())
        })
        .map_err(|e| match e {
            Error::Syntax(what, at) => format!("{what} at {}:{}", at.line, at.column),
            _ => "other".into(),
        })?;
        Ok((
            elements,
            starts,
            String::from_utf8(skeleton.bytes).expect("utf-8"),
        ))
    }

    #[test]
    fn elements_at_the_path_are_split_out_whatever_the_block_size() {
        let text = "{\"x\": [1, {\"b\": [9]}], \"a\": {\"s\": \"}]\\\"[\", \"b\": [\n  {\"k\": \"v]}\\\\\"},\n  [1, [2]], \"s\\\"]\", 12, true\n], \"c\": 1}, \"b\": [3]}";
        for block in [1, 2, 3, 7, 64, 4096] {
            let (elements, starts, skeleton) = run(text, block).expect("splits");
            assert_eq!(
                elements,
                [
                    "{\"k\": \"v]}\\\\\"}",
                    "[1, [2]]",
                    "\"s\\\"]\"",
                    "12",
                    "true"
                ],
                "block {block}"
            );
            assert_eq!(starts[0], Position { line: 2, column: 3 });
            assert_eq!(starts[1], Position { line: 3, column: 3 });
            assert_eq!(
                starts[4],
                Position {
                    line: 3,
                    column: 25
                }
            );
            assert_eq!(
                skeleton,
                "{\"x\": [1, {\"b\": [9]}], \"a\": {\"s\": \"}]\\\"[\", \"b\": [], \"c\": 1}, \"b\": [3]}"
            );
            // Every skeleton byte parses, and a position after the array maps back.
            serde_json::from_str::<serde_json::Value>(&skeleton).expect("skeleton parses");
        }
    }

    #[test]
    fn skeleton_positions_after_the_array_map_to_the_file() {
        let text = "{\"a\": {\"b\": [\n1,\n2\n], \"c\": tru}}";
        let reader = std::io::BufReader::new(text.as_bytes());
        let skeleton = split(reader, &[b"a", b"b"], |_, _| Ok::<_, ()>(()))
            .unwrap_or_else(|_| panic!("splits"));
        let e = serde_json::from_slice::<serde_json::Value>(&skeleton.bytes)
            .expect_err("broken literal");
        let at = skeleton.original(e.line() as u64, e.column() as u64);
        let want = serde_json::from_str::<serde_json::Value>(text).expect_err("broken literal");
        assert_eq!(
            (at.line, at.column),
            (want.line() as u64, want.column() as u64)
        );
        // Before the array, positions are the file's.
        assert_eq!(skeleton.original(1, 3), Position { line: 1, column: 3 });
    }

    proptest::proptest! {
        /// Any bytes, in any block size: elements and a skeleton, or an error, never a panic;
        /// and a document that parses splits into elements and a skeleton that parse too.
        #[test]
        fn split_never_panics_and_keeps_every_byte_of_valid_json(
            s in "[{}\\[\\],:\"\\\\ab1\n ]{0,80}",
            block in 1usize..9,
        ) {
            let doc = format!("{{\"a\": {{\"b\": {s}}}}}");
            let reader = std::io::BufReader::with_capacity(block, doc.as_bytes());
            let mut elements = Vec::new();
            let out = split(reader, &[b"a", b"b"], |e, _| {
                elements.push(e.to_vec());
                Ok::<_, ()>(())
            });
            if serde_json::from_str::<serde_json::Value>(&doc).is_ok() {
                let Ok(skeleton) = out else {
                    panic!("valid JSON refused: {doc}");
                };
                proptest::prop_assert!(serde_json::from_slice::<serde_json::Value>(&skeleton.bytes).is_ok());
                for e in &elements {
                    proptest::prop_assert!(serde_json::from_slice::<serde_json::Value>(e).is_ok(), "{doc}");
                }
            }
        }
    }

    #[test]
    fn a_broken_array_is_refused_where_it_breaks() {
        assert_eq!(
            run("{\"a\": {\"b\": [1 2]}}", 8).err().as_deref(),
            Some("expected `,` or `]` at 1:16")
        );
        assert_eq!(
            run("{\"a\": {\"b\": [1,]}}", 8).err().as_deref(),
            Some("expected a value at 1:16")
        );
        assert_eq!(
            run("{\"a\": {\"b\": [{\"k\": 1}", 8).err().as_deref(),
            Some("EOF while parsing a list at 1:22")
        );
        // No array at the path: everything is skeleton.
        let (elements, _, skeleton) = run("{\"b\": [1], \"a\": {\"c\": [2]}}", 8).expect("splits");
        assert!(elements.is_empty());
        assert_eq!(skeleton, "{\"b\": [1], \"a\": {\"c\": [2]}}");
    }
}
