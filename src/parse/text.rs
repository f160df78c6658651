//! Substring search for the short patterns of log parsing.
//!
//! `str::split_once("…")` builds a Two-Way searcher on every call, which
//! costs more than the search itself on a 100-byte line. Here a pattern is
//! found with `memchr` on its first byte and a compare of the rest: linear
//! enough for log lines (cut at 1 MiB) and several times faster on them.
//!
//! Every index returned is a character boundary: a match starts at a byte
//! equal to the pattern's first byte, which (the pattern being valid UTF-8)
//! is ASCII or a leading byte, and ends after the pattern's last character.

/// A pattern: a `char` or a `&str`.
pub trait Needle {
    /// The pattern's UTF-8 bytes.
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R;
}

impl Needle for char {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        let mut buf = [0u8; 4];
        f(self.encode_utf8(&mut buf).as_bytes())
    }
}

impl Needle for &str {
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.as_bytes())
    }
}

/// The bytes [`find_byte`] looks at a word at a time before it hands the
/// rest to `memchr`, whose dispatch costs more than the search on the few
/// bytes a tag or a field usually spans.
const SHORT_SCAN: usize = 32;

/// Byte index of the first `byte` in `hay`, like `memchr::memchr`: the
/// first [`SHORT_SCAN`] bytes eight at a time in a plain `u64` (a byte equal
/// to `byte` becomes zero under the xor; subtracting one from every byte
/// borrows through the lowest zero byte first, so the lowest flagged byte
/// is the first match), then `memchr`.
#[inline]
pub fn find_byte(hay: &[u8], byte: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let pattern = ONES.wrapping_mul(u64::from(byte));
    let mut at = 0;
    while at < SHORT_SCAN {
        let Some(word) = hay
            .get(at..at + 8)
            .and_then(|chunk| <[u8; 8]>::try_from(chunk).ok())
        else {
            return hay
                .get(at..)?
                .iter()
                .position(|&b| b == byte)
                .map(|pos| at + pos);
        };
        let diff = u64::from_le_bytes(word) ^ pattern;
        let flagged = diff.wrapping_sub(ONES) & !diff & HIGHS;
        if flagged != 0 {
            return Some(at + (flagged.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    memchr::memchr(byte, hay.get(at..)?).map(|pos| at + pos)
}

/// Byte index of the first occurrence of `needle` in `hay`.
fn find_bytes(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = match needle.split_first() {
        Some(split) => split,
        None => return Some(0),
    };
    let mut from = 0;
    while let Some(pos) = memchr::memchr(first, hay.get(from..)?) {
        let at = from + pos;
        if hay.get(at + 1..at + 1 + rest.len()) == Some(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Byte index of the last occurrence of `needle` in `hay`.
fn rfind_bytes(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = match needle.split_first() {
        Some(split) => split,
        None => return Some(hay.len()),
    };
    let mut end = hay.len();
    while let Some(at) = memchr::memrchr(first, hay.get(..end)?) {
        if hay.get(at + 1..at + 1 + rest.len()) == Some(rest) {
            return Some(at);
        }
        end = at;
    }
    None
}

/// Fast `find` / `split_once` / `rsplit_once` on `str`.
pub trait FastSplit {
    /// Byte index of the first `needle`, like `str::find`.
    fn find_fast(&self, needle: impl Needle) -> Option<usize>;
    /// Like `str::split_once`.
    fn split_fast(&self, needle: impl Needle) -> Option<(&str, &str)>;
    /// Like `str::rsplit_once`.
    fn rsplit_fast(&self, needle: impl Needle) -> Option<(&str, &str)>;
}

impl FastSplit for str {
    fn find_fast(&self, needle: impl Needle) -> Option<usize> {
        needle.with_bytes(|pat| find_bytes(self.as_bytes(), pat))
    }

    fn split_fast(&self, needle: impl Needle) -> Option<(&str, &str)> {
        needle.with_bytes(|pat| {
            let at = find_bytes(self.as_bytes(), pat)?;
            Some((self.get(..at)?, self.get(at + pat.len()..)?))
        })
    }

    fn rsplit_fast(&self, needle: impl Needle) -> Option<(&str, &str)> {
        needle.with_bytes(|pat| {
            let at = rfind_bytes(self.as_bytes(), pat)?;
            Some((self.get(..at)?, self.get(at + pat.len()..)?))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn agrees_with_std_on_examples() {
        let text = "Beta_3 finishes after 34.13 (136.52G/4.00G) é]x]";
        for pat in [" ", " finishes ", "(", "]", "é", "G/", "zz", "", "x]"] {
            assert_eq!(text.find_fast(pat), text.find(pat), "{pat:?}");
            assert_eq!(text.split_fast(pat), text.split_once(pat), "{pat:?}");
            assert_eq!(text.rsplit_fast(pat), text.rsplit_once(pat), "{pat:?}");
        }
        for ch in [' ', ']', 'é', '€'] {
            assert_eq!(text.split_fast(ch), text.split_once(ch), "{ch:?}");
            assert_eq!(text.rsplit_fast(ch), text.rsplit_once(ch), "{ch:?}");
        }
    }

    proptest! {
        #[test]
        fn agrees_with_std(text in "[ a-c\\]é(]{0,40}", pat in "[ a-c\\]é(]{0,3}") {
            prop_assert_eq!(text.find_fast(pat.as_str()), text.find(pat.as_str()));
            prop_assert_eq!(text.split_fast(pat.as_str()), text.split_once(pat.as_str()));
            prop_assert_eq!(text.rsplit_fast(pat.as_str()), text.rsplit_once(pat.as_str()));
        }

        /// Every length around the word and short-scan boundaries, the
        /// byte anywhere or nowhere, neighbours one above and below it
        /// (the borrow of the word trick) and high bytes.
        #[test]
        fn find_byte_agrees_with_a_plain_scan(
            hay in proptest::collection::vec(
                prop_oneof![Just(b']'), Just(b'\\'), Just(b'^'), Just(0x80u8), Just(0xffu8), Just(0u8), any::<u8>()],
                0..80,
            ),
            byte in prop_oneof![Just(b']'), Just(0u8), Just(0xffu8), any::<u8>()],
        ) {
            prop_assert_eq!(find_byte(&hay, byte), hay.iter().position(|&b| b == byte));
        }
    }
}
