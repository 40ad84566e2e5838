//! Percent-encoding of a path segment or query value in links the pages
//! build: the one encoder of the web layer (a space is `%20`, right in a
//! path and in a query alike; `form_urlencoded` would write `+`).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Every byte but the RFC 3986 unreserved ones (letters, digits, `-._~`).
const ESCAPED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// Every byte but the RFC 3986 unreserved ones as `%XX`.
pub fn urlencode(s: &str) -> String {
    utf8_percent_encode(s, ESCAPED).to_string()
}

#[cfg(test)]
mod tests {
    use super::urlencode;

    #[test]
    fn escapes_all_but_the_unreserved_bytes() {
        assert_eq!(urlencode("licheepi-4a_v1.2~x"), "licheepi-4a_v1.2~x");
        assert_eq!(
            urlencode("board:rig a;kernel:6.5+rt"),
            "board%3Arig%20a%3Bkernel%3A6.5%2Brt"
        );
        assert_eq!(urlencode("µs/?&=#"), "%C2%B5s%2F%3F%26%3D%23");
    }
}
