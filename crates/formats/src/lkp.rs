//! (to be written)

use crate::document::BlockBody;
use crate::error::ParseError;
use crate::lines::Line;

/// Recognise a block of this format starting at `lines[start]`: `None` when
/// the line does not start one; `Some(Ok((lines consumed, body)))`;
/// `Some(Err(_))` when it starts one but does not parse.
pub fn recognize(
    _lines: &[Line<'_>],
    _start: usize,
) -> Option<Result<(usize, BlockBody), ParseError>> {
    None
}
