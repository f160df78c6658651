//! Bounded line reading: splits a byte stream on `\n`, strips one trailing
//! `\r`, cuts lines longer than a limit without ever buffering more than the
//! limit, and decodes each line as UTF-8 (lossily when it must).
//!
//! Architecture Invariant: parse knows nothing of policy, replay or report;
//! this module knows nothing of log layouts either: it hands out lines and
//! the problems found in their bytes.

use std::borrow::Cow;
use std::io::{self, BufRead};

/// Longest line kept, in bytes; longer lines are cut here (with a warning).
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

/// One physical line as read, before decoding.
#[derive(Debug)]
pub struct RawLine<'a> {
    /// The kept bytes, without the `\n` and without a trailing `\r`.
    pub bytes: &'a [u8],
    /// The full length of the line in bytes (without `\n` / `\r`), when it was
    /// cut; `None` when `bytes` is the whole line.
    pub cut_from: Option<usize>,
    /// `bytes` as text, when they were already validated as UTF-8 (with the
    /// block they came in).
    pub text: Option<&'a str>,
}

/// Reads lines from a [`BufRead`] into one reused buffer.
pub struct LineReader<'r> {
    reader: &'r mut dyn BufRead,
    buf: Vec<u8>,
    limit: usize,
    /// Bytes of the reader's buffer lent out as the previous line, consumed at
    /// the next call (a line that lies whole in the buffer is not copied).
    lent: usize,
}

impl<'r> LineReader<'r> {
    /// A reader keeping at most `limit` bytes of each line.
    pub fn new(reader: &'r mut dyn BufRead, limit: usize) -> Self {
        LineReader {
            reader,
            buf: Vec::with_capacity(4096),
            limit,
            lent: 0,
        }
    }

    /// The next line, or `None` at the end of the input. A last line without
    /// a trailing newline is returned like any other.
    pub fn next_line(&mut self) -> io::Result<Option<RawLine<'_>>> {
        self.reader.consume(std::mem::take(&mut self.lent));
        // Fast path: the whole line is already buffered; lend it without copying.
        let whole = match self.reader.fill_buf() {
            Ok(available) => memchr::memchr(b'\n', available).filter(|&pos| {
                pos <= self.limit || (pos == self.limit + 1 && available[pos - 1] == b'\r')
            }),
            Err(_) => None,
        };
        if let Some(pos) = whole {
            self.lent = pos + 1;
            let line = &self.reader.fill_buf()?[..pos];
            return Ok(Some(RawLine {
                bytes: line.strip_suffix(b"\r").unwrap_or(line),
                cut_from: None,
                text: None,
            }));
        }
        self.buf.clear();
        let mut total = 0usize;
        let mut saw_any = false;
        let mut last_byte = 0u8;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if available.is_empty() {
                break;
            }
            saw_any = true;
            let (chunk, consumed, done) = match memchr::memchr(b'\n', available) {
                Some(pos) => (&available[..pos], pos + 1, true),
                None => (available, available.len(), false),
            };
            // Keep one byte beyond the limit, so a `\r` just past it is still
            // seen and a cut can back off to a character boundary.
            let room = (self.limit + 1).saturating_sub(self.buf.len());
            self.buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if let Some(&byte) = chunk.last() {
                last_byte = byte;
            }
            total += chunk.len();
            self.reader.consume(consumed);
            if done {
                break;
            }
        }
        if !saw_any {
            return Ok(None);
        }
        let full_len = if last_byte == b'\r' { total - 1 } else { total };
        if full_len <= self.limit {
            self.buf.truncate(full_len);
            return Ok(Some(RawLine {
                bytes: &self.buf,
                cut_from: None,
                text: None,
            }));
        }
        let end = cut_point(&self.buf, self.limit);
        self.buf.truncate(end);
        Ok(Some(RawLine {
            bytes: &self.buf,
            cut_from: Some(full_len),
            text: None,
        }))
    }

    /// Hands every line to `on_line`, in order, as [`next_line`] would
    /// return them, until the end of the input or an error.
    ///
    /// Faster than calling [`next_line`]: the lines that lie whole in the
    /// reader's buffer are split out of it block by block, and each block
    /// is validated as UTF-8 once ([`RawLine::text`]) instead of line by
    /// line. Lines that straddle two buffers go through [`next_line`].
    ///
    /// [`next_line`]: LineReader::next_line
    pub fn for_each_line(&mut self, on_line: &mut dyn FnMut(RawLine<'_>)) -> io::Result<()> {
        loop {
            self.reader.consume(std::mem::take(&mut self.lent));
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            let Some(last) = memchr::memrchr(b'\n', available) else {
                // A partial line at the end of the buffer (or of the input).
                match self.next_line()? {
                    Some(line) => on_line(line),
                    None => return Ok(()),
                }
                continue;
            };
            let block = &available[..=last];
            let text = std::str::from_utf8(block).ok();
            let mut start = 0;
            // One searcher over the block: a call per line would pay the
            // search's set-up on every short line.
            for end in memchr::memchr_iter(b'\n', block) {
                let whole = &block[start..end];
                let len = whole.len() - usize::from(whole.last() == Some(&b'\r'));
                let (kept, cut_from) = if len > self.limit {
                    (cut_point(whole, self.limit), Some(len))
                } else {
                    (len, None)
                };
                on_line(RawLine {
                    bytes: &whole[..kept],
                    cut_from,
                    text: text.and_then(|text| text.get(start..start + kept)),
                });
                start = end + 1;
            }
            self.lent = block.len();
        }
    }
}

/// Where a line longer than `limit` bytes is cut: at the limit, backed off
/// (at most three bytes) to a UTF-8 character boundary.
fn cut_point(line: &[u8], limit: usize) -> usize {
    let mut end = limit.min(line.len());
    let floor = end.saturating_sub(3);
    while end > floor && end < line.len() && (line[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    end
}

/// A line decoded to text: borrowed when it was valid UTF-8.
#[derive(Debug)]
pub struct DecodedLine<'a> {
    /// The text, with invalid sequences replaced by U+FFFD.
    pub text: Cow<'a, str>,
    /// Invalid byte sequences replaced, and the 1-based column (in
    /// characters) of the first one; `None` when the line was valid.
    pub invalid: Option<(usize, u32)>,
}

/// Decodes a line as UTF-8: its text when its block was valid, else its
/// bytes through [`decode`].
pub fn decode_line<'a>(line: &RawLine<'a>) -> DecodedLine<'a> {
    match line.text {
        Some(text) => DecodedLine {
            text: Cow::Borrowed(text),
            invalid: None,
        },
        None => decode(line.bytes),
    }
}

/// Decodes `bytes` as UTF-8, with a fast path for valid input.
pub fn decode(bytes: &[u8]) -> DecodedLine<'_> {
    match std::str::from_utf8(bytes) {
        Ok(text) => DecodedLine {
            text: Cow::Borrowed(text),
            invalid: None,
        },
        Err(_) => {
            let mut text = String::with_capacity(bytes.len() + 8);
            let mut count = 0usize;
            let mut first_column = None;
            for chunk in bytes.utf8_chunks() {
                text.push_str(chunk.valid());
                if !chunk.invalid().is_empty() {
                    if first_column.is_none() {
                        first_column = Some(text.chars().count() as u32 + 1);
                    }
                    count += 1;
                    text.push('\u{FFFD}');
                }
            }
            DecodedLine {
                text: Cow::Owned(text),
                invalid: Some((count, first_column.unwrap_or(1))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8], limit: usize) -> Vec<(Vec<u8>, Option<usize>)> {
        let mut cursor = io::Cursor::new(input.to_vec());
        let mut reader = LineReader::new(&mut cursor, limit);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            out.push((line.bytes.to_vec(), line.cut_from));
        }
        out
    }

    #[test]
    fn splits_on_lf_and_strips_cr() {
        let lines = read_all(b"a\r\nbb\n\nccc", 100);
        assert_eq!(
            lines,
            vec![
                (b"a".to_vec(), None),
                (b"bb".to_vec(), None),
                (b"".to_vec(), None),
                (b"ccc".to_vec(), None),
            ]
        );
    }

    #[test]
    fn lines_spanning_reader_buffers() {
        let text = b"first line\r\nsecond, longer line\nx\r\n\nlast";
        let mut buffered = io::BufReader::with_capacity(3, io::Cursor::new(text.to_vec()));
        let mut reader = LineReader::new(&mut buffered, 12);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            out.push((
                String::from_utf8_lossy(line.bytes).into_owned(),
                line.cut_from,
            ));
        }
        let expected = [
            ("first line", None),
            ("second, long", Some(19)),
            ("x", None),
            ("", None),
            ("last", None),
        ];
        let expected: Vec<(String, Option<usize>)> = expected
            .iter()
            .map(|(text, cut)| (text.to_string(), *cut))
            .collect();
        assert_eq!(out, expected);
    }

    /// Every line of `input` through `for_each_line`, read in buffers of
    /// `capacity` bytes, decoded.
    fn each_line(input: &[u8], capacity: usize, limit: usize) -> Vec<(String, Option<usize>)> {
        let mut buffered = io::BufReader::with_capacity(capacity, io::Cursor::new(input.to_vec()));
        let mut reader = LineReader::new(&mut buffered, limit);
        let mut out = Vec::new();
        reader
            .for_each_line(&mut |line| {
                let text = decode_line(&line).text.into_owned();
                assert!(line.text.is_none() || line.text == Some(text.as_str()));
                out.push((text, line.cut_from));
            })
            .unwrap();
        out
    }

    /// The same lines through `next_line`.
    fn line_by_line(input: &[u8], capacity: usize, limit: usize) -> Vec<(String, Option<usize>)> {
        let mut buffered = io::BufReader::with_capacity(capacity, io::Cursor::new(input.to_vec()));
        let mut reader = LineReader::new(&mut buffered, limit);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            out.push((decode(line.bytes).text.into_owned(), line.cut_from));
        }
        out
    }

    #[test]
    fn each_line_splits_blocks_like_next_line() {
        let text = "first line\r\nsecond, longer line\nx\r\n\naé€b\nlast".as_bytes();
        for capacity in [1, 3, 7, 64, 4096] {
            for limit in [2, 4, 12, 100] {
                assert_eq!(
                    each_line(text, capacity, limit),
                    line_by_line(text, capacity, limit),
                    "capacity {capacity} limit {limit}"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn each_line_agrees_with_next_line(
            bytes in proptest::collection::vec(
                proptest::sample::select(vec![b'a', b'\n', b'\r', 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xFF]),
                0..200,
            ),
            capacity in 1usize..40,
            limit in 1usize..20,
        ) {
            proptest::prop_assert_eq!(
                each_line(&bytes, capacity, limit),
                line_by_line(&bytes, capacity, limit)
            );
        }
    }

    #[test]
    fn empty_input_has_no_lines() {
        assert!(read_all(b"", 10).is_empty());
    }

    #[test]
    fn long_line_is_cut_and_reading_goes_on() {
        let lines = read_all(b"0123456789abc\nnext\n", 4);
        assert_eq!(lines[0], (b"0123".to_vec(), Some(13)));
        assert_eq!(lines[1], (b"next".to_vec(), None));
        // Exactly at the limit is not cut, even with a CR.
        let lines = read_all(b"0123\r\n", 4);
        assert_eq!(lines[0], (b"0123".to_vec(), None));
    }

    #[test]
    fn memory_stays_bounded_on_a_huge_line() {
        use std::io::Read;
        let huge = 64 * 1024 * 1024;
        let input = io::repeat(b'x')
            .take(huge as u64)
            .chain(io::Cursor::new(b"\r\nnext\n".to_vec()));
        let mut buffered = io::BufReader::with_capacity(64 * 1024, input);
        let mut reader = LineReader::new(&mut buffered, MAX_LINE_BYTES);
        let line = reader.next_line().unwrap().unwrap();
        assert_eq!(
            (line.bytes.len(), line.cut_from),
            (MAX_LINE_BYTES, Some(huge))
        );
        assert!(reader.buf.capacity() <= 2 * MAX_LINE_BYTES + 64 * 1024);
        let line = reader.next_line().unwrap().unwrap();
        assert_eq!(line.bytes, b"next");
    }

    #[test]
    fn cut_backs_off_to_char_boundary() {
        // "aé" = 61 C3 A9; a limit of 2 would split the é.
        let lines = read_all("aéb\n".as_bytes(), 2);
        assert_eq!(lines[0], (b"a".to_vec(), Some(4)));
    }

    #[test]
    fn decode_counts_invalid_sequences() {
        let decoded = decode(b"caf\xe9 \xff!");
        assert_eq!(decoded.text, "caf\u{FFFD} \u{FFFD}!");
        assert_eq!(decoded.invalid, Some((2, 4)));
        assert!(decode(b"plain").invalid.is_none());
    }
}
