//! Opening inputs: files, `.gz` files (detected by magic bytes), standard input.

use crate::parse::error::{ParseError, ParseErrorKind};
use crate::source::{Location, SourcePath};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Reader buffer size: large enough for sequential throughput.
const BUFFER_BYTES: usize = 256 * 1024;

/// The path string used in locations for `path` (`-` stays `-`).
pub fn display_path(path: &Path) -> SourcePath {
    SourcePath::from(path.to_string_lossy().as_ref())
}

fn io_error(path: &Path, err: &io::Error) -> ParseError {
    ParseError::error(
        Location::file(display_path(path)),
        ParseErrorKind::Io {
            message: err.to_string().to_lowercase(),
        },
    )
}

/// Opens `path` for streaming (`-` = standard input). What a volunteer's
/// copy may be is undone transparently, as its first bytes tell: gzip is
/// decompressed; UTF-16 (with a byte-order mark, or ASCII text whose every
/// other byte is NUL: what Windows PowerShell's `>` and Notepad's
/// "Unicode" write) is read as UTF-8; a text whose lines end with a lone
/// CR (classic Mac OS, some paste tools) has them end with LF.
pub fn open_input(path: &Path) -> Result<Box<dyn BufRead + Send>, ParseError> {
    open_input_buffered(path, BUFFER_BYTES)
}

/// [`open_input`] with buffers of `capacity` bytes: a small one when only
/// the head is read (its kind), so that no more of the file is read.
pub fn open_input_buffered(
    path: &Path,
    capacity: usize,
) -> Result<Box<dyn BufRead + Send>, ParseError> {
    let raw: Box<dyn Read + Send> = if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path).map_err(|err| io_error(path, &err))?)
    };
    let mut reader: Box<dyn BufRead + Send> = Box::new(BufReader::with_capacity(capacity, raw));
    let head = |reader: &mut Box<dyn BufRead + Send>| {
        reader
            .fill_buf()
            .map(sniff)
            .map_err(|err| io_error(path, &err))
    };
    if head(&mut reader)? == Layout::Gzip {
        let decoder = flate2::bufread::MultiGzDecoder::new(reader);
        reader = Box::new(BufReader::with_capacity(capacity, decoder));
    }
    if let Layout::Utf16 { big_endian, bom } = head(&mut reader)? {
        let decoder = Utf16Reader::new(reader, big_endian, bom);
        reader = Box::new(BufReader::with_capacity(capacity, decoder));
    }
    if head(&mut reader)? == Layout::LoneCr {
        reader = Box::new(BufReader::with_capacity(
            capacity,
            LoneCrReader::new(reader),
        ));
    }
    Ok(reader)
}

/// What an input's first bytes say it is, beyond UTF-8 text with LF or
/// CRLF line ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    Plain,
    Gzip,
    Utf16 {
        big_endian: bool,
        bom: bool,
    },
    /// Lines end with a CR alone: the head holds CRs and no LF.
    LoneCr,
}

/// How many leading byte pairs decide UTF-16 without a byte-order mark.
const UTF16_SNIFF_PAIRS: usize = 256;

fn sniff(head: &[u8]) -> Layout {
    if head.starts_with(&[0x1f, 0x8b]) {
        return Layout::Gzip;
    }
    match head {
        [0xff, 0xfe, ..] => {
            return Layout::Utf16 {
                big_endian: false,
                bom: true,
            }
        }
        [0xfe, 0xff, ..] => {
            return Layout::Utf16 {
                big_endian: true,
                bom: true,
            }
        }
        _ => {}
    }
    // ASCII text in UTF-16: one byte of each pair NUL, the other not.
    let pairs: Vec<&[u8]> = head.chunks_exact(2).take(UTF16_SNIFF_PAIRS).collect();
    let ascii = |text: u8| text != 0 && text.is_ascii();
    let low_first = pairs.iter().filter(|p| ascii(p[0]) && p[1] == 0).count();
    let high_first = pairs.iter().filter(|p| p[0] == 0 && ascii(p[1])).count();
    if pairs.len() >= 8 {
        if low_first * 10 >= pairs.len() * 9 {
            return Layout::Utf16 {
                big_endian: false,
                bom: false,
            };
        }
        if high_first * 10 >= pairs.len() * 9 {
            return Layout::Utf16 {
                big_endian: true,
                bom: false,
            };
        }
    }
    if head.contains(&b'\r') && !head.contains(&b'\n') {
        return Layout::LoneCr;
    }
    Layout::Plain
}

/// UTF-16 read as UTF-8: each unit pair decoded, a unit left unpaired (a
/// lone surrogate, an odd last byte) read as U+FFFD.
struct Utf16Reader<R> {
    inner: R,
    decoder: Utf16Decoder,
    /// How much of the decoder's text was handed out.
    given: usize,
}

/// UTF-16 decoding state across input blocks.
struct Utf16Decoder {
    big_endian: bool,
    /// A byte-order mark still to skip.
    bom: bool,
    /// The first byte of a unit split across reads.
    odd: Option<u8>,
    /// A high surrogate waiting for its low half.
    high: Option<u16>,
    /// Decoded text not yet handed out.
    out: Vec<u8>,
}

impl<R: BufRead> Utf16Reader<R> {
    fn new(inner: R, big_endian: bool, bom: bool) -> Self {
        Utf16Reader {
            inner,
            decoder: Utf16Decoder {
                big_endian,
                bom,
                odd: None,
                high: None,
                out: Vec::new(),
            },
            given: 0,
        }
    }

    /// Decodes the next block of input (borrowed from the inner reader);
    /// false at its end.
    fn refill(&mut self) -> io::Result<bool> {
        self.given = 0;
        let bytes = self.inner.fill_buf()?;
        let n = bytes.len();
        let more = self.decoder.decode(bytes);
        self.inner.consume(n);
        Ok(more)
    }
}

impl Utf16Decoder {
    fn push(&mut self, c: char) {
        let mut utf8 = [0u8; 4];
        self.out
            .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
    }

    fn unit(&mut self, unit: u16) {
        if let Some(high) = self.high.take() {
            if (0xdc00..0xe000).contains(&unit) {
                let code =
                    0x10000 + ((u32::from(high) - 0xd800) << 10) + (u32::from(unit) - 0xdc00);
                self.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                return;
            }
            self.push(char::REPLACEMENT_CHARACTER);
        }
        match unit {
            0xd800..=0xdbff => self.high = Some(unit),
            0xdc00..=0xdfff => self.push(char::REPLACEMENT_CHARACTER),
            _ => self.push(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER)),
        }
    }

    /// Replaces `out` with the text of `bytes` (an empty block is the
    /// input's end: what is left half-read becomes U+FFFD); false when
    /// nothing more will come.
    fn decode(&mut self, bytes: &[u8]) -> bool {
        self.out.clear();
        if bytes.is_empty() {
            if self.odd.take().is_some() || self.high.take().is_some() {
                self.push(char::REPLACEMENT_CHARACTER);
            }
            return !self.out.is_empty();
        }
        let mut rest = bytes;
        if let Some(first) = self.odd.take() {
            self.pair([first, rest[0]]);
            rest = &rest[1..];
        }
        let mut pairs = rest.chunks_exact(2);
        for pair in &mut pairs {
            self.pair([pair[0], pair[1]]);
        }
        self.odd = pairs.remainder().first().copied();
        true
    }

    fn pair(&mut self, pair: [u8; 2]) {
        let unit = if self.big_endian {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        };
        if std::mem::take(&mut self.bom) && unit == 0xfeff {
            return;
        }
        self.unit(unit);
    }
}

impl<R: BufRead> Read for Utf16Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.given == self.decoder.out.len() {
            if !self.refill()? {
                return Ok(0);
            }
        }
        let out = &self.decoder.out;
        let n = buf.len().min(out.len() - self.given);
        buf[..n].copy_from_slice(&out[self.given..self.given + n]);
        self.given += n;
        Ok(n)
    }
}

/// Lines ended by a lone CR read as ended by LF (a CRLF stays one end).
struct LoneCrReader<R> {
    inner: R,
    /// The last byte read was a CR (now an LF): an LF right after it is
    /// the same line end.
    after_cr: bool,
}

impl<R> LoneCrReader<R> {
    fn new(inner: R) -> Self {
        LoneCrReader {
            inner,
            after_cr: false,
        }
    }
}

impl<R: Read> Read for LoneCrReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.inner.read(buf)?;
            if n == 0 {
                return Ok(0);
            }
            let mut kept = 0;
            for k in 0..n {
                let byte = buf[k];
                if byte == b'\n' && std::mem::take(&mut self.after_cr) {
                    continue;
                }
                self.after_cr = byte == b'\r';
                buf[kept] = if self.after_cr { b'\n' } else { byte };
                kept += 1;
            }
            if kept > 0 {
                return Ok(kept);
            }
        }
    }
}

/// Reads the whole of `path` into memory (decompressing gzip); for XML inputs,
/// which are small.
pub fn read_input(path: &Path) -> Result<Vec<u8>, ParseError> {
    let mut reader = open_input(path)?;
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|err| io_error(path, &err))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(path_bytes: &[u8]) -> String {
        let dir = std::env::temp_dir().join(format!("boinc-audit-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("{n}.txt"));
        std::fs::write(&path, path_bytes).expect("write");
        let mut text = String::new();
        open_input(&path)
            .expect("open")
            .read_to_string(&mut text)
            .expect("utf-8");
        let _ = std::fs::remove_file(&path);
        text
    }

    const LOG: &str = "25-Nov-2026 12:29:09 [---] Starting BOINC client version 7.20.5\n\
                       25-Nov-2026 12:29:09 [P1] [work_fetch] REC 0.000 prio -0.000 can request work\n";

    fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let units = bom.then_some(0xfeff).into_iter().chain(text.encode_utf16());
        for unit in units {
            out.extend(if big_endian {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            });
        }
        out
    }

    /// What PowerShell's `>` writes (UTF-16LE with a BOM), Notepad's
    /// "Unicode big endian", and either without its mark, read as the log.
    #[test]
    fn utf16_logs_read_as_their_text() {
        for big_endian in [false, true] {
            for bom in [true, false] {
                assert_eq!(
                    through(&utf16(LOG, big_endian, bom)),
                    LOG,
                    "{big_endian} {bom}"
                );
            }
        }
        // A character outside the BMP, and a lone surrogate.
        let mut bytes = utf16("a\u{1F600}b\n", false, true);
        assert_eq!(through(&bytes), "a\u{1F600}b\n");
        bytes.extend([0x00, 0xd8, b'c', 0]);
        assert_eq!(through(&bytes), "a\u{1F600}b\n\u{FFFD}c");
    }

    /// Lines ended by a lone CR end with LF; a CRLF later stays one end.
    #[test]
    fn lone_cr_line_ends_read_as_lf() {
        let cr = LOG.replace('\n', "\r");
        assert_eq!(through(cr.as_bytes()), LOG);
        // A CRLF after the head's lone CRs stays one line end.
        let mut reader = LoneCrReader::new(&b"a\rb\r\nc\r"[..]);
        let mut text = String::new();
        reader.read_to_string(&mut text).expect("utf-8");
        assert_eq!(text, "a\nb\nc\n");
        // CRLF logs are left to the line reader.
        let crlf = LOG.replace('\n', "\r\n");
        assert_eq!(through(crlf.as_bytes()), crlf);
    }
}
