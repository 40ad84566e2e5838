//! Board names as they come in (upload metadata, the import form, cost
//! tables) mapped to one canonical name, so `licheepi-4a` and `LicheePi
//! 4A` are one board. The spellings live in `data/board-aliases.tsv`
//! (compiled in); names are compared folded: case, whitespace and the
//! separators `-_./` do not count.

use std::collections::HashMap;
use std::sync::OnceLock;

const ALIASES: &str = include_str!("../data/board-aliases.tsv");

/// A name folded for comparison: lower case, without whitespace and the
/// separators `-_./` (other punctuation is kept: it can tell boards apart).
pub fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '-' | '_' | '.' | '/'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Folded spelling -> canonical name, from a table in the format of
/// `data/board-aliases.tsv`. A spelling listed for two boards is an error
/// naming the line.
pub fn parse_table(text: &str) -> Result<HashMap<String, String>, String> {
    let mut map: HashMap<String, String> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let mut names = line.split('\t').map(str::trim).filter(|s| !s.is_empty());
        let Some(canonical) = names.next() else {
            continue;
        };
        for spelling in std::iter::once(canonical).chain(names) {
            let key = fold(spelling);
            if key.is_empty() {
                return Err(format!("line {}: an empty spelling", i + 1));
            }
            if let Some(other) = map.get(&key)
                && other != canonical
            {
                return Err(format!(
                    "line {}: {spelling:?} is already a spelling of {other:?}",
                    i + 1
                ));
            }
            map.insert(key, canonical.to_string());
        }
    }
    Ok(map)
}

fn table() -> &'static HashMap<String, String> {
    static TABLE: OnceLock<HashMap<String, String>> = OnceLock::new();
    TABLE.get_or_init(|| {
        parse_table(ALIASES).unwrap_or_else(|e| {
            // The file is compiled in and checked by a unit test.
            tracing::error!(error = %e, "data/board-aliases.tsv is invalid; no aliases applied");
            HashMap::new()
        })
    })
}

/// The canonical name of a board as typed: the table's name when a
/// spelling matches, otherwise the input with its whitespace collapsed.
pub fn canonical(name: &str) -> String {
    let collapsed = name.split_whitespace().collect::<Vec<_>>().join(" ");
    match table().get(&fold(&collapsed)) {
        Some(c) => c.clone(),
        None => collapsed,
    }
}

/// [`canonical`] for an optional, possibly blank field.
pub fn canonical_opt(name: Option<&str>) -> Option<String> {
    name.map(canonical).filter(|s| !s.is_empty())
}

/// Boards already stored under another spelling of `name` (folded equal,
/// or aliases of one board) but not under the canonical one: what the form
/// shows as "did you mean".
pub fn same_board<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let c = canonical(name);
    let key = fold(&c);
    known
        .into_iter()
        .filter(|k| *k != c && (fold(k) == key || canonical(k) == c))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_table_is_valid() {
        let t = parse_table(ALIASES).unwrap();
        assert!(t.len() > 10);
    }

    #[test]
    fn spellings_of_one_board_are_one_name() {
        for s in [
            "licheepi-4a",
            "LicheePi 4A",
            "  licheepi   4a ",
            "Lichee_Pi_4A",
            "lpi4a",
            "Sipeed LicheePi 4A",
        ] {
            assert_eq!(canonical(s), "LicheePi 4A", "{s}");
        }
        assert_eq!(canonical("intel core i7-4790"), "i7-4790");
        assert_eq!(canonical("RPI4"), "Raspberry Pi 4 Model B");
    }

    #[test]
    fn unknown_boards_are_kept_and_distinct_boards_stay_apart() {
        assert_eq!(
            canonical("E5-2680  32 cores\t384GB"),
            "E5-2680 32 cores 384GB"
        );
        assert_eq!(canonical("rig-a"), "rig-a");
        assert_ne!(canonical("Raspberry Pi 5"), canonical("Raspberry Pi 4"));
        assert_ne!(canonical("i7-4790"), canonical("i7-4790K"));
        assert_eq!(canonical(""), "");
        assert_eq!(canonical_opt(Some("  ")), None);
    }

    #[test]
    fn a_spelling_of_two_boards_is_refused_with_its_line() {
        let e = parse_table("# c\nA\tx\nB\tX\n").unwrap_err();
        assert!(e.starts_with("line 3:"), "{e}");
    }

    #[test]
    fn other_stored_spellings_are_found() {
        let known = ["licheepi-4a", "LicheePi 4A", "rig-a"];
        assert_eq!(same_board("lpi4a", known), vec!["licheepi-4a"]);
        assert!(same_board("rig-a", known).is_empty());
    }
}
