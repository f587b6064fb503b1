//! Bounded capture of a process's stdout and stderr, in memory, while it runs.
//!
//! A task may print gigabytes (a log loop, `yes`, a binary dump). Round 1 sent output to
//! files and cut them afterwards, so a 600 MB flood cost 600 MB of disk while the trial ran,
//! enough on a small CI disk to make healthy parallel trials FAIL. Here each stream is a pipe
//! ([`Streams`]) drained by the attempt's own thread, which polls both pipes together with
//! the process's pidfd, keeping only a head and a tail ([`HEAD_BYTES`] and [`TAIL_BYTES`],
//! plus a redaction margin each) and counting the middle. (A reader thread per attempt
//! cost more than the trial of a quick task; it remains only where there is no pidfd.)
//! Memory per stream is bounded by `HEAD_BYTES + TAIL_BYTES + 2 × margin` whatever the task
//! prints, and nothing reaches disk until the redacted, cut log is written at the end.
//!
//! Redaction happens *before* the cut: the head and the tail are each kept `margin` bytes
//! longer than shown, redacted, and only then cut to size, so a secret that straddles a cut
//! is either redacted whole or falls entirely into the part that is dropped; it never leaks
//! in pieces. The margin is at least the longest literal secret and at least
//! [`MIN_MARGIN`] (for `policy.redact` patterns, whose matches are assumed shorter).
//!
//! A grandchild that left the process group may hold a pipe open after the trial ended:
//! [`Streams::finish`] then drains what is already buffered and stops reading, so it cannot
//! stall the runner.

use std::collections::VecDeque;
use std::io::PipeReader;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::redact::Redactor;
use super::sys;

/// Bytes of the start of each stream shown in a log.
pub const HEAD_BYTES: usize = 128 * 1024;
/// Bytes of the end of each stream shown in a log.
pub const TAIL_BYTES: usize = 128 * 1024;
/// Smallest redaction margin kept beyond each cut.
pub const MIN_MARGIN: usize = 4096;
/// How long [`Streams::finish`] keeps draining a pipe still held open by a straggler.
const DRAIN: Duration = Duration::from_millis(100);
/// Longest wait for more output once the process ended (a poll wakes at once on data or end
/// of file).
const TICK: Duration = Duration::from_millis(20);

/// The kept head and tail of one stream.
#[derive(Debug, Clone)]
pub struct Capture {
    margin: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
}

impl Capture {
    /// An empty capture that keeps `margin` bytes beyond each cut for redaction.
    pub fn new(margin: usize) -> Self {
        Capture {
            margin: margin.max(MIN_MARGIN),
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
        }
    }

    /// Take in more output.
    pub fn push(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        let head_room = (HEAD_BYTES + self.margin).saturating_sub(self.head.len());
        if head_room > 0 {
            let n = head_room.min(data.len());
            self.head.extend_from_slice(&data[..n]);
            data = &data[n..];
        }
        let cap = TAIL_BYTES + self.margin;
        if data.len() >= cap {
            self.tail.clear();
            self.tail.extend(&data[data.len() - cap..]);
        } else {
            let over = (self.tail.len() + data.len()).saturating_sub(cap);
            self.tail.drain(..over);
            self.tail.extend(data);
        }
    }

    /// Bytes the stream produced in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes held in memory (bounded by `HEAD_BYTES + TAIL_BYTES + 2 × margin`).
    pub fn held(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    /// The redacted text: all of it when it fits in `HEAD_BYTES + TAIL_BYTES`, else the
    /// head, a line saying how many bytes were elided, and the tail — redacted before the
    /// cut.
    pub fn text(&self, redactor: &Redactor) -> String {
        let dropped = self.total - self.held() as u64;
        if dropped == 0 {
            // Contiguous: redact the whole, then cut.
            let mut all = self.head.clone();
            all.extend(self.tail.iter());
            let red = redactor.apply(&String::from_utf8_lossy(&all));
            if red.len() <= HEAD_BYTES + TAIL_BYTES {
                return red;
            }
            let head = prefix(&red, HEAD_BYTES);
            let tail = suffix(&red, TAIL_BYTES);
            let elided = red.len() - head.len() - tail.len();
            return joined(head, elided as u64, tail);
        }
        let head_red = redactor.apply(&String::from_utf8_lossy(&self.head));
        let tail_bytes: Vec<u8> = self.tail.iter().copied().collect();
        let tail_red = redactor.apply(&String::from_utf8_lossy(&tail_bytes));
        let elided = self.total.saturating_sub((HEAD_BYTES + TAIL_BYTES) as u64);
        joined(
            prefix(&head_red, HEAD_BYTES),
            elided,
            suffix(&tail_red, TAIL_BYTES),
        )
    }
}

fn joined(head: &str, elided: u64, tail: &str) -> String {
    let nl = if head.ends_with('\n') { "" } else { "\n" };
    format!("{head}{nl}[… {elided} bytes of output elided by gate …]\n{tail}")
}

/// At most `n` bytes from the start of `s`, on a character boundary.
fn prefix(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut cut = n;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    &s[..cut]
}

/// At most `n` bytes from the end of `s`, on a character boundary.
fn suffix(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut cut = s.len() - n;
    while !s.is_char_boundary(cut) {
        cut += 1;
    }
    &s[cut..]
}

/// A process's stdout and stderr pipes and the two [`Capture`]s they fill, pumped by
/// whichever thread waits for the process: the attempt's own thread, which polls the pipes
/// together with the process's pidfd (no thread per attempt), or a [`Reader`] thread where
/// there is no pidfd.
#[derive(Debug)]
pub struct Streams {
    pipes: [PipeReader; 2],
    open: [bool; 2],
    caps: [Capture; 2],
    buf: Vec<u8>,
}

impl Streams {
    /// Capture `out` and `err` (made non-blocking), keeping `margin` bytes for redaction.
    pub fn new(out: PipeReader, err: PipeReader, margin: usize) -> Streams {
        for fd in [out.as_raw_fd(), err.as_raw_fd()] {
            sys::set_nonblocking(fd);
        }
        Streams {
            pipes: [out, err],
            open: [true, true],
            caps: [Capture::new(margin), Capture::new(margin)],
            buf: Vec::new(),
        }
    }

    /// The descriptors still worth watching: a stream at end of file is `None`.
    pub fn fds(&self) -> [Option<RawFd>; 2] {
        [0, 1].map(|i| self.open[i].then(|| self.pipes[i].as_raw_fd()))
    }

    /// Whether either stream may still produce output.
    pub fn is_open(&self) -> bool {
        self.open.iter().any(|o| *o)
    }

    /// Read what the streams marked `ready` hold now, without blocking. A flooding stream
    /// yields after 1 MiB, so the caller gets back to its deadline and to the other stream.
    pub fn pump(&mut self, ready: [bool; 2]) {
        if self.buf.capacity() == 0 {
            // Allocated on first output (a quiet process costs no buffer), and not zeroed:
            // each read fills the buffer's spare capacity (issue 29: zeroing 64 KiB was
            // about 55 k instructions per trial, for the end of file of a no-op).
            self.buf = Vec::with_capacity(64 * 1024);
        }
        let streams = self
            .pipes
            .iter_mut()
            .zip(&mut self.open)
            .zip(&mut self.caps);
        for (((pipe, open), cap), ready) in streams.zip(ready) {
            if !*open || !ready {
                continue;
            }
            for _ in 0..16 {
                self.buf.clear();
                // rustix's safe read into the spare capacity: the length grows by what the
                // kernel wrote.
                match rustix::io::read(&*pipe, rustix::buffer::spare_capacity(&mut self.buf)) {
                    Ok(0) => {
                        *open = false;
                        break;
                    }
                    Ok(_) => cap.push(&self.buf),
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(rustix::io::Errno::AGAIN) => break,
                    Err(_) => {
                        *open = false;
                        break;
                    }
                }
            }
        }
    }

    /// The process ended: take what is buffered, waiting at most `DRAIN` in all, and no
    /// longer than `TICK` for more, since a straggler that left the process group may hold
    /// a pipe open forever. Returns both captures.
    pub fn finish(mut self) -> [Capture; 2] {
        let until = Instant::now() + DRAIN;
        while self.is_open() {
            let now = Instant::now();
            if now >= until {
                break;
            }
            match sys::poll_readable(self.fds(), TICK.min(until - now)) {
                Some(ready) => self.pump(ready),
                // Nothing more is buffered: a straggler may still hold the pipe.
                None => break,
            }
        }
        self.caps
    }
}

/// A thread pumping [`Streams`] while the process runs, for kernels without pidfds (where
/// the attempt's thread blocks in `wait` and cannot poll the pipes itself).
#[derive(Debug)]
pub struct Reader {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<[Capture; 2]>,
}

impl Reader {
    /// Start pumping `streams`.
    pub fn start(streams: Streams) -> std::io::Result<Reader> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("gate-capture".into())
            // The thread holds one 64 KiB buffer on the heap and little else.
            .stack_size(128 * 1024)
            .spawn(move || pump_until(streams, &flag))?;
        Ok(Reader { stop, handle })
    }

    /// The process ended: take what is buffered (see [`Streams::finish`]) and return both
    /// captures.
    pub fn finish(self) -> [Capture; 2] {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().unwrap_or_else(|_| {
            // The reader cannot panic on any input; an empty capture beats losing the row.
            [Capture::new(0), Capture::new(0)]
        })
    }
}

fn pump_until(mut streams: Streams, stop: &AtomicBool) -> [Capture; 2] {
    while streams.is_open() && !stop.load(Ordering::Relaxed) {
        if let Some(ready) = sys::poll_readable(streams.fds(), TICK) {
            streams.pump(ready);
        }
    }
    streams.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    #[test]
    fn small_output_is_kept_whole() {
        let mut c = Capture::new(0);
        c.push(b"hello\n");
        c.push(b"world\n");
        assert_eq!(c.text(&Redactor::default()), "hello\nworld\n");
    }

    #[test]
    fn stdout_flood_is_bounded_in_memory() {
        let mut c = Capture::new(0);
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..600 {
            c.push(&chunk);
        }
        assert_eq!(c.total(), 600 << 20);
        assert!(c.held() <= HEAD_BYTES + TAIL_BYTES + 2 * MIN_MARGIN);
        let t = c.text(&Redactor::default());
        assert!(t.len() < HEAD_BYTES + TAIL_BYTES + 200);
        assert!(t.contains(&format!(
            "[… {} bytes of output elided by gate …]",
            (600u64 << 20) - (HEAD_BYTES + TAIL_BYTES) as u64
        )));
    }

    #[test]
    fn a_secret_split_by_the_head_cut_does_not_leak() {
        let secret = "sk-SPLITSECRET-0123456789";
        let r = Redactor::new([("API_KEY", secret)], Vec::<Regex>::new());
        for offset in [3usize, 10, 20] {
            let mut c = Capture::new(secret.len());
            let mut data = vec![b'a'; HEAD_BYTES - offset];
            data.extend_from_slice(secret.as_bytes());
            data.extend(vec![b'b'; 3 * (HEAD_BYTES + TAIL_BYTES)]);
            c.push(&data);
            let t = c.text(&r);
            for piece in [&secret[..offset], &secret[offset..]] {
                assert!(
                    !t.contains(piece),
                    "offset {offset}: piece {piece:?} leaked"
                );
            }
        }
    }

    #[test]
    fn a_secret_split_by_the_tail_cut_does_not_leak() {
        let secret = "sk-SPLITSECRET-0123456789";
        let r = Redactor::new([("API_KEY", secret)], Vec::<Regex>::new());
        for offset in [3usize, 10, 20] {
            let mut c = Capture::new(secret.len());
            let mut data = vec![b'a'; 3 * (HEAD_BYTES + TAIL_BYTES)];
            data.extend_from_slice(secret.as_bytes());
            // The tail window starts `offset` bytes into the secret.
            data.extend(vec![b'b'; TAIL_BYTES - (secret.len() - offset)]);
            c.push(&data);
            let t = c.text(&r);
            assert!(!t.contains(&secret[offset..]), "offset {offset} leaked");
        }
    }

    #[test]
    fn a_secret_at_the_cut_of_contiguous_output_does_not_leak() {
        let secret = "sk-SPLITSECRET-0123456789";
        let r = Redactor::new([("API_KEY", secret)], Vec::<Regex>::new());
        // Fits in head + tail + margins but not in head + tail: one cut, after redaction.
        let mut data = vec![b'a'; HEAD_BYTES - 5];
        data.extend_from_slice(secret.as_bytes());
        data.extend(vec![b'b'; TAIL_BYTES + 100]);
        let mut c = Capture::new(secret.len());
        c.push(&data);
        let t = c.text(&r);
        assert!(!t.contains(&secret[..5]) && !t.contains(&secret[5..]));
    }

    #[test]
    fn reader_stops_on_a_pipe_held_open() {
        let (out_r, out_w) = std::io::pipe().unwrap();
        let (err_r, err_w) = std::io::pipe().unwrap();
        let reader = Reader::start(Streams::new(out_r, err_r, 0)).unwrap();
        use std::io::Write;
        (&out_w).write_all(b"partial").unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let started = Instant::now();
        // The writers stay open, like a straggler holding the pipe.
        let [out, err] = reader.finish();
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(out.text(&Redactor::default()), "partial");
        assert_eq!(err.total(), 0);
        drop((out_w, err_w));
    }
}
