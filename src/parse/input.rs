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

/// Opens `path` for streaming (`-` = standard input); gzip is decompressed
/// transparently when the content starts with the gzip magic bytes.
pub fn open_input(path: &Path) -> Result<Box<dyn BufRead + Send>, ParseError> {
    let raw: Box<dyn Read + Send> = if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path).map_err(|err| io_error(path, &err))?)
    };
    let mut reader = BufReader::with_capacity(BUFFER_BYTES, raw);
    let is_gzip = {
        let head = reader.fill_buf().map_err(|err| io_error(path, &err))?;
        head.starts_with(&[0x1f, 0x8b])
    };
    if is_gzip {
        let decoder = flate2::bufread::MultiGzDecoder::new(reader);
        Ok(Box::new(BufReader::with_capacity(BUFFER_BYTES, decoder)))
    } else {
        Ok(Box::new(reader))
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
