//! Hints guessed from the prose around result blocks: the before/after label
//! (cue phrases in `data/label_cues.txt`), the board or CPU (patterns in
//! `data/boards.txt`) and kernel version strings.
//!
//! Both tables are data so that a new phrasing seen in a mail is a one-line
//! change with a test, not new code. Nothing here parses results.

use std::sync::OnceLock;

use crate::detect::Scanned;
use crate::document::BlockBody;
use crate::lines::Line;

const LABEL_CUES: &str = include_str!("../data/label_cues.txt");
const BOARDS: &str = include_str!("../data/boards.txt");

/// `(phrase lowercased, label)` in file order.
fn cues() -> &'static [(String, String)] {
    static CUES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    CUES.get_or_init(|| {
        LABEL_CUES
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(|l| l.split_once("=>"))
            .map(|(p, lab)| (p.trim().to_lowercase(), lab.trim().to_string()))
            .collect()
    })
}

fn board_patterns() -> &'static [&'static str] {
    static PATTERNS: OnceLock<Vec<&'static str>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        BOARDS
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

fn is_word_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Every cue phrase in `text`, left to right, not overlapping: at each
/// position the longest phrase wins. Returns `(byte offset, phrase as
/// printed, label)`.
pub fn cue_matches(text: &str) -> Vec<(usize, String, String)> {
    let lower = text.to_lowercase();
    // Lowercasing can change byte lengths for some scripts; then positions
    // would not map back to `text`, so report the lowercased phrase instead.
    let same_len = lower.len() == text.len();
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < lower.len() {
        let rest = match lower.get(pos..) {
            Some(r) => r,
            None => break,
        };
        let before = lower.get(..pos).and_then(|s| s.chars().next_back());
        let mut best: Option<&(String, String)> = None;
        if !is_word_char(before) {
            for cue in cues() {
                if rest.starts_with(cue.0.as_str())
                    && !is_word_char(rest.get(cue.0.len()..).and_then(|s| s.chars().next()))
                    && best.is_none_or(|b| cue.0.len() > b.0.len())
                {
                    best = Some(cue);
                }
            }
        }
        match best {
            // A phrase that only looks like a cue: skipped whole.
            Some((phrase, label)) if label == "-" => pos += phrase.len(),
            Some((phrase, label)) => {
                let printed = if same_len {
                    text.get(pos..pos + phrase.len()).unwrap_or(phrase)
                } else {
                    phrase
                };
                out.push((pos, printed.to_string(), label.clone()));
                pos += phrase.len();
            }
            None => {
                pos += rest.chars().next().map(char::len_utf8).unwrap_or(1);
            }
        }
    }
    out
}

/// The label a line of prose gives the block below it: the cue found in it,
/// or `None` when there is none or the line names both sides.
pub fn label_of_line(text: &str) -> Option<String> {
    let found = cue_matches(text);
    let first = found.first()?.2.clone();
    if found.iter().all(|(_, _, l)| *l == first) {
        Some(first)
    } else {
        None
    }
}

/// Map a column header as printed (`w/o patch`) to a label; a header with no
/// cue is kept as printed (`batch-v1`).
pub fn label_of_header(header: &str) -> String {
    label_of_line(header).unwrap_or_else(|| header.trim().to_string())
}

/// The first board or CPU named in `text`.
pub fn find_board(text: &str) -> Option<String> {
    let starts = text
        .char_indices()
        .filter(|&(i, _)| !is_word_char(text.get(..i).and_then(|s| s.chars().next_back())))
        .map(|(i, _)| i);
    for i in starts {
        let rest = text.get(i..)?;
        let first = rest.as_bytes().first();
        for pat in board_patterns() {
            // Patterns start with a literal character: a cheap first filter.
            if pat.as_bytes().first() != first {
                continue;
            }
            if let Some(len) = match_pattern(pat, rest)
                && !is_word_char(rest.get(len..).and_then(|s| s.chars().next()))
            {
                return rest.get(..len).map(str::to_string);
            }
        }
    }
    None
}

/// Length of the prefix of `s` matched by a board pattern.
fn match_pattern(pat: &str, s: &str) -> Option<usize> {
    let mut si = 0;
    let sb = s.as_bytes();
    for pc in pat.chars() {
        match pc {
            '#' => {
                if !sb.get(si)?.is_ascii_digit() {
                    return None;
                }
                si += 1;
            }
            '*' => {
                while sb.get(si).is_some_and(|b| b.is_ascii_alphanumeric()) {
                    si += 1;
                }
            }
            c => {
                let mut buf = [0u8; 4];
                let enc = c.encode_utf8(&mut buf).as_bytes();
                if sb.get(si..si + enc.len())? != enc {
                    return None;
                }
                si += enc.len();
            }
        }
    }
    Some(si)
}

/// The first kernel version string in `text`: `6.12.0-rc5`, `4.8.0-rc5`,
/// `6.5.0-rt6-r1208-00003-g999d221864bf`, `v6.10`. Bare `x.y` needs a `v`
/// prefix, and implausible majors/minors (tool versions such as `2.34.1`)
/// are skipped.
pub fn find_kernel(text: &str) -> Option<String> {
    let t = text.trim();
    for raw in t.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '(' | ')'
                    | ','
                    | '"'
                    | '\''
                    | '['
                    | ']'
                    | '<'
                    | '>'
                    | '`'
                    | '：'
                    | '，'
                    | '（'
                    | '）'
            )
    }) {
        let tok = raw.trim_end_matches(['.', ':', ';', '!', '?']);
        // `v6.10+` is "6.10 and later"; a `+` after a release's own suffix
        // is part of what `uname -r` printed (`6.6.73-rt47-v8-RTLC+`, a
        // build from a modified tree).
        let tok = match tok.strip_suffix('+') {
            Some(t) if !t.contains('-') => t,
            _ => tok,
        };
        // A version alone on a line is a `git format-patch` signature.
        if tok == t {
            continue;
        }
        let (prefixed, body) = match tok.strip_prefix('v') {
            Some(b) => (true, b),
            None => (false, tok),
        };
        if let Some(v) = kernel_version(body, prefixed) {
            return Some(v);
        }
    }
    None
}

/// The kernel a single token names (`v6.18-rc3` -> `6.18-rc3`,
/// `6.12.0-rc5`), as [`find_kernel`] reads tokens: an LKP column head that
/// is a release tag rather than a commit.
pub fn kernel_of_token(tok: &str) -> Option<String> {
    let tok = tok.trim();
    match tok.strip_prefix('v') {
        Some(b) => kernel_version(b, true),
        None => kernel_version(tok, false),
    }
}

fn kernel_version(s: &str, prefixed: bool) -> Option<String> {
    let mut parts = s.splitn(2, ['-']);
    let numeric = parts.next()?;
    let suffix = parts.next();
    let mut nums = numeric.split('.');
    let major: u32 = nums.next()?.parse().ok()?;
    let minor: u32 = nums.next()?.parse().ok()?;
    let third = nums.next();
    let third_numeric =
        third.is_some_and(|x| !x.is_empty() && x.chars().all(|c| c.is_ascii_digit()));
    // `6.12.0.g4236f913` (a git describe suffix after a dot) counts as a suffix.
    let dotted_suffix = third.is_some_and(|x| !third_numeric && !x.is_empty());
    let max_minor = match major {
        2 => 6,
        3 => 19,
        4 => 20,
        5 => 19,
        6 | 7 => 40,
        _ => return None,
    };
    if minor > max_minor {
        return None;
    }
    if third.is_some_and(|x| x.is_empty()) {
        return None;
    }
    // `6.6-stable` (a stable review patch) and `6.6.y` name a stable
    // series, not a release anyone ran.
    let series = (third.is_none() && suffix.is_some_and(|x| x.eq_ignore_ascii_case("stable")))
        || third.is_some_and(|x| x == "y" || x == "x");
    if series {
        return None;
    }
    let has_suffix = suffix.is_some_and(|x| !x.is_empty()) || dotted_suffix;
    if !(prefixed || third_numeric || has_suffix) {
        return None;
    }
    if !s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
    {
        return None;
    }
    Some(s.to_string())
}

/// How far above a block its label may be: this many non-blank prose lines,
/// within this many lines.
const LABEL_PROSE_LINES: usize = 2;
const LABEL_WINDOW: usize = 6;
/// How far above a block a board or kernel named in prose still counts as
/// "near".
const NEAR_WINDOW: usize = 12;
/// How far above a block its context reaches: the most lines any hint
/// reads above a block (the streaming parser keeps this many).
pub const CONTEXT_LINES: usize = 40;
/// Lines of a block searched for hints (a trace header, a table title).
pub const BLOCK_LINES: usize = 64;
/// Lines at the start of the input (or of each message) whose header-like
/// lines name a kernel or board for every block below.
pub const HEADER_LINES: usize = 200;

/// A guess and the input line it was read from.
pub type Guess = (String, u64);

/// Hints read from the start of an input or message: the first board and
/// the first header-like kernel line.
#[derive(Debug, Clone, Default)]
pub struct HeaderHints {
    pub board: Option<Guess>,
    pub kernel: Option<Guess>,
}

impl HeaderHints {
    /// Look at one more line of the start of the input.
    pub fn see(&mut self, line: &Line<'_>) {
        if self.board.is_none()
            && let Some(b) = find_board(line.text)
        {
            self.board = Some((b, line.no));
        }
        if self.kernel.is_none()
            && let Some(k) = header_kernel(line.text)
        {
            self.kernel = Some((k, line.no));
        }
    }

    /// From the first [`HEADER_LINES`] of `lines`.
    pub fn of(lines: &[Line<'_>]) -> Self {
        let mut h = HeaderHints::default();
        lines.iter().take(HEADER_LINES).for_each(|l| h.see(l));
        h
    }
}

/// Lines of a kernel oops, warning or hung-task report: the version they
/// print is the kernel that crashed in someone's report, not necessarily
/// the one measured, and they are never a guess.
fn is_splat(text: &str) -> bool {
    const MARKS: [&str; 12] = [
        "Not tainted",
        "Tainted:",
        "INFO: task ",
        "blocked for more than",
        " Comm: ",
        "Hardware name:",
        "Call Trace",
        "RIP:",
        "BUG:",
        "WARNING:",
        "Workqueue:",
        "Oops",
    ];
    MARKS.iter().any(|m| text.contains(m))
}

/// The kernel a header-like line names: `uname -a` output (`Linux host
/// 6.1.0-13-amd64 #1 SMP ...`), `Linux version 6.1.0 ...` (dmesg,
/// /proc/version), a `Kernel:` / `kernel version` field, a mail
/// `Subject:` line, or a tool's `#` header (`# os release : 6.5.0`).
pub fn header_kernel(text: &str) -> Option<String> {
    let t = text.trim();
    if is_splat(t) {
        return None;
    }
    let lower_head: String = t.chars().take(24).collect::<String>().to_ascii_lowercase();
    let header = t.contains("Linux version ")
        || (t.starts_with("Linux ") && t.split_whitespace().count() >= 3)
        || lower_head.starts_with("kernel:")
        || lower_head.starts_with("kernel version")
        || lower_head.starts_with("kernel release")
        || lower_head.starts_with("uname")
        || t.starts_with("内核")
        || lower_head.starts_with("$ uname")
        || lower_head.starts_with("subject:")
        || (t.starts_with('#') && lower_head.contains("release"));
    if !header {
        return None;
    }
    find_kernel(t)
}

/// A kernel named in the prose above a block: only a full release
/// string (`6.12.0-rc5`, `4.8.0`), never a bare `v6.10`, a range
/// (`v6.10+`, `6.1.0+` in prose) or a line of a splat.
pub fn prose_kernel(text: &str) -> Option<String> {
    if is_splat(text) {
        return None;
    }
    let k = find_kernel(text)?;
    let pos = text.find(k.as_str())?;
    let after = text[pos + k.len()..].chars().next();
    let numeric_tail = k
        .split('-')
        .next()
        .is_some_and(|n| n.split('.').count() >= 3);
    let suffixed = k.contains('-');
    if after == Some('+') && !suffixed {
        return None;
    }
    (numeric_tail || suffixed).then_some(k)
}

/// A kernel release heading the block: the last non-blank line above it
/// is a release, alone or with a word or two, as people head each of
/// several results (`6.12.0-rc5`, then its cyclictest summary;
/// `6.9.12-stable`, then the next; `6.10.14-stable +xx`, a build with
/// patches on top), or a line that names `Linux` and a release, which
/// may then have two numbers only (`Ubuntu 18.04 / Linux 5.17:`).
/// Otherwise only a full release string counts (as in [`prose_kernel`]),
/// and only a line of the block's own quote level after the previous
/// block.
fn heading_kernel(
    body: &BlockBody,
    lines: &[Line<'_>],
    first: usize,
    floor: usize,
    quote: u32,
) -> Option<Guess> {
    let above = lines.get(floor..first)?;
    // The tool's own log lines above its table (`stress-ng: info: [1430]
    // dispatching hogs: 9 msg`) and the command that ran it are the
    // block's preamble, not a heading.
    let mut nonblank = above
        .iter()
        .rev()
        .filter(|l| !l.text.trim().is_empty())
        .skip_while(|l| l.quote == quote && is_own_log(body, l.text.trim_start()));
    let mut l = nonblank.next()?;
    // An underlined heading (`5.12.0-rc6+` over `-----------`).
    let rule =
        |t: &str| t.len() >= 3 && (t.bytes().all(|b| b == b'-') || t.bytes().all(|b| b == b'='));
    if rule(l.text.trim()) {
        l = nonblank.next().filter(|h| h.quote == l.quote)?;
    }
    if l.quote != quote {
        return None;
    }
    let t = l.text.trim().trim_end_matches(':');
    // `Ubuntu 18.04 / Linux 5.17:` over a result: a heading that names its
    // kernel after the word `Linux` may name a release by its two numbers.
    if let Some(k) = t
        .split_once("Linux ")
        .and_then(|(_, r)| r.split_whitespace().next())
        .map(|w| w.trim_end_matches([':', ',', ')', ';']))
        .and_then(|w| kernel_version(w.strip_prefix('v').unwrap_or(w), true))
    {
        return Some((k, l.no));
    }
    let mut words = t.split_whitespace();
    let v = words.next()?;
    let rest: Vec<&str> = words.collect();
    let k = kernel_version(v.strip_prefix('v').unwrap_or(v), v.starts_with('v'))?;
    let full = k.contains('-')
        || k.split('-')
            .next()
            .is_some_and(|n| n.split('.').count() >= 3);
    if !full || rest.len() > 2 || rest.iter().map(|w| w.len()).sum::<usize>() > 24 {
        return None;
    }
    // `6.10.14-stable +xx` is a build of its own; `6.12.0-rc5 patched`
    // names a side of the comparison (the label), on that kernel.
    let rest = rest.join(" ");
    if rest.is_empty() || label_of_line(&rest).is_some() {
        Some((k, l.no))
    } else {
        Some((format!("{k} {rest}"), l.no))
    }
}

/// Where a block sits in the lines handed to [`annotate_block`].
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// The first line after the previous block of the same message.
    pub prev_end: usize,
    /// The first line of the block's message (0 outside mails).
    pub floor: usize,
}

/// Fill `label`, `board`, `kernel` (and where they were read) of every
/// block, then `duplicate_of`. `ranges` are the `[start, end)` line indices
/// of each message (one range covering everything for a non-mail input);
/// `Scanned::first/last` index `lines`. Each hint reads a bounded number of
/// lines: the block's first [`BLOCK_LINES`], [`CONTEXT_LINES`] above it,
/// and the first [`HEADER_LINES`] of its message and of the input.
pub fn annotate(blocks: &mut [Scanned], lines: &[Line<'_>], ranges: &[(usize, usize)]) {
    let whole = (0, lines.len());
    let input = HeaderHints::of(lines);
    let per_message: Vec<HeaderHints> = ranges
        .iter()
        .map(|&(a, b)| HeaderHints::of(lines.get(a..b.min(lines.len())).unwrap_or(&[])))
        .collect();
    for b in 0..blocks.len() {
        let Some(cur) = blocks.get(b) else { continue };
        let msg = cur.block.message.unwrap_or(0);
        let range = ranges.get(msg).copied().unwrap_or(whole);
        let prev_end = blocks
            .get(..b)
            .unwrap_or(&[])
            .iter()
            .rev()
            .find(|p| p.block.message == cur.block.message)
            .map(|p| p.last + 1)
            .unwrap_or(range.0)
            .max(range.0);
        let headers = [per_message.get(msg), Some(&input)];
        if let Some(cur) = blocks.get_mut(b) {
            annotate_block(
                cur,
                lines,
                Bounds {
                    prev_end,
                    floor: range.0,
                },
                &headers,
            );
        }
    }
    relate(blocks);
    heading_labels(blocks, lines);
}

/// Whether a block is a table whose columns are results to compare (not
/// will-it-scale's measurement columns).
fn holds_columns(body: &BlockBody) -> bool {
    match body {
        BlockBody::Table(t) => {
            t.style != "will-it-scale" && t.rows.iter().map(|r| r.values.len()).max() > Some(1)
        }
        _ => false,
    }
}

/// The short line just above a block that introduces it (`Config=n`,
/// `cyclictest results on 6.12.y with d66792919d4f reverted:`): the
/// nearest non-blank line within [`HEADING_GAP`] lines, at the block's
/// quote level, after the previous block. The tool's own log lines just
/// above its block (`stress-ng: info: [7158] dispatching hogs`, perf's
/// `# started on ...`) are passed over, and a heading may be a short paragraph of up to
/// [`HEADING_LINES`] lines (`baseline:` with the feature names under it),
/// joined by spaces.
fn heading_of(blocks: &[Scanned], b: usize, lines: &[Line<'_>]) -> Option<String> {
    let cur = blocks.get(b)?;
    let floor = b
        .checked_sub(1)
        .and_then(|p| blocks.get(p))
        .filter(|p| p.block.message == cur.block.message)
        .map_or(0, |p| p.last + 1);
    heading_above(&cur.block.body, lines, cur.first, floor)
}

/// [`heading_of`] for a block whose first line is `first`, searching no
/// higher than `floor` (the line after the previous block).
pub fn heading_above(
    body: &BlockBody,
    lines: &[Line<'_>],
    first: usize,
    floor: usize,
) -> Option<String> {
    // `time ./test` and the test's own output over the report: the heading
    // is what stands above the command.
    let first = match body {
        BlockBody::Time(_) => time_command_above(lines, first, floor).unwrap_or(first),
        _ => first,
    };
    let quote = lines.get(first)?.quote;
    let own_log = |text: &str| is_own_log(body, text);
    let mut k = first;
    let mut gap = 0;
    let mut para: Vec<&str> = Vec::new();
    while k > floor {
        k -= 1;
        let l = lines.get(k)?;
        let text = l.text.trim();
        if para.is_empty() && l.quote == quote && (own_log(text) || is_fence(text)) {
            continue;
        }
        if text.is_empty() || l.quote != quote {
            if para.is_empty() && l.quote == quote {
                gap += 1;
                if gap >= HEADING_GAP {
                    return None;
                }
                continue;
            }
            break;
        }
        if para.is_empty() && (text.len() > 100 || !text.chars().any(|c| c.is_alphabetic())) {
            return None;
        }
        // A footnote's marker over its name (`[3]` over `before1.csv`,
        // the file a reference in the prose points at) is no part of it.
        let marker = text
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if marker && !para.is_empty() {
            continue;
        }
        para.push(text);
        if para.len() > HEADING_LINES {
            return None;
        }
    }
    let (&last, above) = para.split_first()?;
    // A Markdown heading (`### Boot 3`) right above: the heading, whatever
    // prose comes before it, without its marks.
    if is_markdown_heading(last) {
        return heading_line(last);
    }
    // More than one line: each a short name, not the end of a sentence.
    let names = above.iter().chain([&last]).all(|t| {
        t.len() <= 40 && !t.ends_with(['.', ',', ';']) && t.chars().any(|c| c.is_alphabetic())
    });
    if !above.is_empty() && !names {
        return None;
    }
    // An introduction ending in a colon over a side's name (`Add test
    // results:` over `Before:`): the name alone.
    if last.ends_with(':') && above.iter().any(|t| t.ends_with(':')) {
        return Some(last.trim_end_matches(':').trim().to_string());
    }
    let text: Vec<&str> = para
        .iter()
        .rev()
        .map(|t| t.trim_end_matches(':').trim())
        .collect();
    Some(text.join(" "))
}

/// A Markdown ATX heading: one to six `#` and a space (`### Boot 3`).
pub(crate) fn is_markdown_heading(text: &str) -> bool {
    let t = text.trim_start();
    let marks = t.len() - t.trim_start_matches('#').len();
    (1..=6).contains(&marks) && t[marks..].starts_with(' ')
}

/// A line a block's own tool printed above it, or the command that ran
/// the tool: passed over when looking for the block's heading.
/// `stress-ng: info: [7158] dispatching hogs`, perf's `# started on ...`,
/// and `hackbench -g 16 -f 20 -l 480000`, `$ perf stat -r 5 ./a.out`,
/// `stress-ng --vm 4` (the tool's name, after a prompt if any, then an
/// option or an argument).
fn is_own_log(body: &BlockBody, text: &str) -> bool {
    let Some(tool) = tool_of(body) else {
        return false;
    };
    let logged = match tool {
        // Also with the `stress-ng: info: [pid]` prefix cut off.
        "stress-ng" => {
            text.starts_with("stress-ng:")
                || text.starts_with("dispatching hogs:")
                || (text.starts_with("setting to a ") && text.ends_with(" run per stressor"))
        }
        "perf-stat" => text.starts_with("# started on "),
        _ => false,
    };
    logged || is_own_command(body, text)
}

/// The tool whose output a block is, where a command line names it.
fn tool_of(body: &BlockBody) -> Option<&str> {
    match body {
        BlockBody::Metrics(m) => Some(m.tool.as_str()),
        BlockBody::Rtla(_) => Some("rtla"),
        BlockBody::Cyclictest(_) => Some("cyclictest"),
        _ => None,
    }
}

/// The command that ran the block's tool (see [`is_own_log`]).
fn is_own_command(body: &BlockBody, text: &str) -> bool {
    let Some(tool) = tool_of(body) else {
        return false;
    };
    // root's bare `# ` prompt is read here too: the tool's name must follow.
    let cmd = crate::lines::after_prompt(text)
        .or_else(|| text.trim_start().strip_prefix("# "))
        .unwrap_or(text)
        .trim_start();
    // rtla names its tool first (`rtla hwnoise -c 0-7`, `rtla timerlat
    // top`).
    let subcommand = tool == "rtla";
    [tool.replace('-', " "), tool.to_string()]
        .iter()
        .find_map(|name| cmd.strip_prefix(name.as_str()))
        .is_some_and(|rest| {
            let arg = rest.trim_start();
            rest.starts_with(' ')
                && (arg.starts_with(['-', '.', '/'])
                    || (subcommand && arg.starts_with(|c: char| c.is_ascii_lowercase())))
        })
}

/// Lines a program may print between the `time CMD` line and the report.
const TIMED_OUTPUT_LINES: usize = 8;

/// The line of a `time CMD` command (after a prompt if any) in the
/// paragraph over a `time` report at `first`, at most one blank line and
/// [`TIMED_OUTPUT_LINES`] lines of the command's output above it.
fn time_command_above(lines: &[Line<'_>], first: usize, floor: usize) -> Option<usize> {
    let quote = lines.get(first)?.quote;
    let mut blanks = 0;
    let mut k = first;
    for _ in 0..TIMED_OUTPUT_LINES + 2 {
        if k <= floor {
            return None;
        }
        k -= 1;
        let l = lines.get(k).filter(|l| l.quote == quote)?;
        let t = l.text.trim();
        if t.is_empty() {
            blanks += 1;
            if blanks > 1 {
                return None;
            }
            continue;
        }
        let cmd = crate::lines::after_prompt(t).unwrap_or(t);
        if cmd
            .strip_prefix("time ")
            .is_some_and(|rest| !rest.trim().is_empty())
        {
            return Some(k);
        }
    }
    None
}

/// A shell command after its prompt ([`crate::lines::after_prompt`]).
fn is_prompt(text: &str) -> bool {
    crate::lines::after_prompt(text).is_some()
}

/// A Markdown code fence (```` ```bash ````, `~~~`): it opens the block
/// below a heading, it is not one.
pub(crate) fn is_fence(text: &str) -> bool {
    let t = text.trim();
    (t.starts_with("```") || t.starts_with("~~~"))
        && t.len() <= 40
        && !t.get(3..).unwrap_or("").trim_start().contains(['`', ' '])
}

/// Lines above a block searched for its heading.
const HEADING_GAP: usize = 3;

/// Most lines a heading paragraph may have.
const HEADING_LINES: usize = 3;

/// Blocks of one kind in one message that would share a column (no label,
/// the same board and kernel) but are introduced by different headings are
/// different things: each is labelled by its heading, so they are never
/// pooled. Headings that differ only in repetition numbers (`run 1:`,
/// `run 2:`, `#3`) introduce repetitions and are left to pool;
/// `numa01:` / `numa02:` name two benchmarks, `4 threads:` / `8 threads:`
/// two settings.
pub fn heading_labels(blocks: &mut [Scanned], lines: &[Line<'_>]) {
    let headings: Vec<Option<String>> = (0..blocks.len())
        .map(|b| {
            blocks
                .get(b)
                .and_then(|s| s.heading.clone())
                .or_else(|| heading_of(blocks, b, lines))
        })
        .collect();
    // A table without a title keeps the heading it is printed under
    // (`[quiet]` over one percentile table, `[noisy]` over the next): it
    // names the table where its title would.
    for (s, h) in blocks.iter_mut().zip(&headings) {
        if let BlockBody::Table(t) = &s.block.body
            && t.title.is_none()
            && s.block.heading.is_none()
        {
            s.block.heading = h.clone();
        }
    }
    let key = |s: &Scanned| {
        (
            s.block.message,
            s.block.kind(),
            s.block.quote_level,
            s.block.board.clone(),
            s.block.kernel.clone(),
        )
    };
    let open = |s: &Scanned| {
        s.block.label.is_none()
            && s.block.duplicate_of.is_none()
            && s.column_label.is_none()
            && !holds_columns(&s.block.body)
    };
    // Repetitions (`run 1:`, `#2`, `(3)`) pool; digits inside a word or a
    // number naming a setting keep headings apart (`numa01`, `mmap-32`,
    // `6.12.87`, `4 threads` / `8 threads`): see [`heading_identity`].
    let without_numbers =
        |h: &str| -> String { heading_identity(h).unwrap_or_default().to_lowercase() };
    let mut done = vec![false; blocks.len()];
    for b in 0..blocks.len() {
        if done[b] || !blocks.get(b).is_some_and(open) {
            continue;
        }
        let k = blocks.get(b).map(key);
        let group: Vec<usize> = (b..blocks.len())
            .filter(|&j| blocks.get(j).is_some_and(|s| open(s) && Some(key(s)) == k))
            .collect();
        for &j in &group {
            done[j] = true;
        }
        let named: Vec<(usize, &String)> = group
            .iter()
            .filter_map(|&j| headings.get(j).and_then(|h| h.as_ref()).map(|h| (j, h)))
            .collect();
        let mut kinds: Vec<String> = named.iter().map(|(_, h)| without_numbers(h)).collect();
        kinds.sort();
        kinds.dedup();
        if kinds.len() < 2 {
            continue;
        }
        let texts: Vec<&str> = named.iter().map(|(_, h)| h.as_str()).collect();
        for (j, h) in &named {
            if let Some(s) = blocks.get_mut(*j) {
                s.block.label = Some(heading_slug(h, &texts));
            }
        }
    }
    // A run printed right under a run labelled by its heading is under
    // that heading too.
    continue_labels(blocks);
    // What nothing named keeps the name it gave itself (a lone hyperfine
    // benchmark's command).
    for s in blocks.iter_mut() {
        if s.block.label.is_none() && s.block.duplicate_of.is_none() {
            s.block.label = s.fallback_label.take();
        }
    }
}

/// A variant-like label for a heading: lower case, words joined by `-`;
/// a long heading keeps only the words that set it apart from the other
/// headings of its group (their common leading and trailing words go).
fn heading_slug(heading: &str, all: &[&str]) -> String {
    let words = |h: &str| -> Vec<String> {
        h.split(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '+' | '_' | '=')))
            .filter(|w| !w.is_empty())
            .map(|w| w.to_lowercase().replace('=', "-"))
            .collect()
    };
    let own = words(heading);
    let mut keep: &[String] = &own;
    if heading.len() > 32 {
        let others: Vec<Vec<String>> = all.iter().map(|h| words(h)).collect();
        let lead = (0..own.len())
            .take_while(|&i| others.iter().all(|o| o.get(i) == own.get(i)))
            .count();
        let trail = (0..own.len() - lead)
            .take_while(|&i| {
                others
                    .iter()
                    .all(|o| o.len() > i && o.get(o.len() - 1 - i) == own.get(own.len() - 1 - i))
            })
            .count();
        if lead + trail < own.len() {
            keep = own.get(lead..own.len() - trail).unwrap_or(&own);
        }
    }
    let mut out = String::new();
    for w in keep {
        if out.len() + w.len() > 48 && !out.is_empty() {
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(w);
    }
    out
}

/// The hints of one block from bounded context: label from the prose just
/// above; board from the block, the prose near and above it, then the
/// `headers` (message, then input); kernel from the block itself, its
/// header-like lines and those of the context, a full release named in
/// the prose of the context, then the `headers`.
pub fn annotate_block(
    cur: &mut Scanned,
    lines: &[Line<'_>],
    at: Bounds,
    headers: &[Option<&HeaderHints>],
) {
    let first = cur.first;
    let quote = lines.get(first).map(|l| l.quote).unwrap_or(0);
    let mut label = cur.column_label.as_deref().map(label_of_header);
    // The first of the block's label lines: its own (side labels), or the
    // prose line its label is read from.
    let mut top = first;
    // A table of several result columns holds both sides itself: each
    // column is named by its header, and the prose's "before" / "after"
    // is about something else.
    if label.is_none() && !holds_columns(&cur.block.body) {
        let mut prose = 0;
        let mut k = first;
        while k > at.prev_end && first - k < LABEL_WINDOW && prose < LABEL_PROSE_LINES {
            k -= 1;
            let Some(l) = lines.get(k) else { break };
            // Blank lines, a code fence, the command that ran the tool
            // (`pi@raspberry:~$ sudo cyclictest -p 99`, `rtla hwnoise -c
            // 0-7` without a prompt) and the tool's own log lines
            // (`dispatching hogs: 9 ramfs`) are no prose.
            if l.quote != quote
                || l.text.trim().is_empty()
                || is_fence(l.text)
                || is_prompt(l.text)
                || is_own_log(&cur.block.body, l.text.trim())
            {
                continue;
            }
            prose += 1;
            if let Some(found) = label_of_line(l.text) {
                label = Some(found);
                top = k;
                break;
            }
        }
    }
    // A block with no label of its own yet (one paired later as the other
    // side) may be under its unlabelled name (`Stock kernel` over `real
    // 0m0.728s`): it only shares the heading of the labelled block above.
    cur.under = under(cur, lines, top, at).filter(|u| label.is_some() || *u == Under::Previous);
    // The tool's own log lines (stress-ng's `passed: 2: cpu (2)`,
    // `dispatching hogs`) between two of its runs are no words of the
    // poster's either.
    cur.continues = at.prev_end > at.floor
        && lines.get(at.prev_end..first).is_some_and(|gap| {
            gap.iter().all(|l| {
                let t = l.text.trim();
                t.is_empty() || is_own_log(&cur.block.body, t)
            })
        });
    let inside_end = (cur.last + 1).min(first + BLOCK_LINES).min(lines.len());
    let inside = first.min(inside_end)..inside_end;
    let near = first.saturating_sub(NEAR_WINDOW).max(at.prev_end)..first;
    let above = first.saturating_sub(CONTEXT_LINES).max(at.floor)..first;
    let find = |range: std::ops::Range<usize>, rev: bool, f: &dyn Fn(&str) -> Option<String>| {
        let slice = lines.get(range).unwrap_or(&[]);
        let hit = |l: &Line<'_>| f(l.text).map(|v| (v, l.no));
        if rev {
            slice.iter().rev().find_map(hit)
        } else {
            slice.iter().find_map(hit)
        }
    };
    let from_headers = |pick: fn(&HeaderHints) -> Option<&Guess>| {
        headers.iter().flatten().find_map(|h| pick(h).cloned())
    };
    let board = find(inside.clone(), false, &find_board)
        .or_else(|| find(near.clone(), true, &find_board))
        .or_else(|| find(above.clone(), true, &find_board))
        .or_else(|| from_headers(|h| h.board.as_ref()));
    // A table comparing kernels names them per column; one kernel for the
    // block only when every column ran the same one.
    // An LKP table's columns are commits: a kernel read near it would file
    // the commit under test under its base (its release-tag columns name
    // their kernel at ingest).
    let per_column = matches!(&cur.block.body, BlockBody::Table(t)
        if !t.column_kernels.is_empty() || t.style == "lkp");
    let kernel = match body_kernel(&cur.block.body) {
        Some(k) => Some((k, 0)),
        None if per_column => None,
        None => find(inside, false, &header_kernel)
            .or_else(|| heading_kernel(&cur.block.body, lines, first, at.prev_end, quote))
            .or_else(|| find(above.clone(), true, &header_kernel))
            .or_else(|| find(above.clone(), true, &prose_kernel))
            .or_else(|| from_headers(|h| h.kernel.as_ref())),
    };
    cur.block.label = label;
    cur.block.board_line = board.as_ref().map(|b| b.1);
    cur.block.board = board.map(|b| b.0);
    // The block's own kernel (its header, its columns) is not a guess.
    cur.block.kernel_line = kernel.as_ref().map(|k| k.1).filter(|&n| n > 0);
    cur.block.kernel = kernel.map(|k| k.0);
}

/// Relations between blocks, after every block has its hints: quoted
/// copies point at their original (`duplicate_of`), and an unlabelled
/// neighbour of a labelled block gets the other side of the comparison.
pub fn relate(blocks: &mut [Scanned]) {
    // Duplicates first: a quoted copy carries its original's label, which
    // can then pair with its unlabelled neighbour.
    mark_duplicates(blocks);
    continue_labels(blocks);
    pair_labels(blocks);
    label_headings(blocks);
}

/// What is above a block's label lines, read with the block's context.
#[derive(Debug, Clone, PartialEq)]
pub enum Under {
    /// A heading line (`numa01:`), as [`heading_line`] gives it.
    Heading(String),
    /// The previous block of the message, with only blank lines between:
    /// the two are printed under one heading (`numa01:` above the
    /// `mm-unstable:` and `mm-unstable++:` lines).
    Previous,
}

/// What is above the label lines of a block whose first label line is
/// `top`: the nearest non-blank line at the block's quote level within
/// [`HEADING_GAP`] lines, passing over lines that are labels themselves
/// (the other side's `before:`), the tool's own log lines and code fences.
/// A column header naming the block's column (side-by-side `time` runs
/// under `vanilla   patched`) is a label line too.
fn under(cur: &Scanned, lines: &[Line<'_>], top: usize, at: Bounds) -> Option<Under> {
    let body = &cur.block.body;
    let header = |text: &str| {
        cur.column_label
            .as_deref()
            .is_some_and(|c| !c.trim().is_empty() && text.contains(c.trim()))
    };
    if matches!(body, BlockBody::Table(_)) {
        return None;
    }
    let quote = lines.get(top)?.quote;
    let own_log = |text: &str| is_own_log(body, text);
    let mut k = top;
    let mut gap = 0;
    while k > at.prev_end {
        // Within the context a streamed block keeps above it.
        if top - k >= CONTEXT_LINES {
            return None;
        }
        k -= 1;
        let l = lines.get(k)?;
        if l.quote != quote {
            return None;
        }
        let text = l.text.trim();
        if text.is_empty() {
            gap += 1;
            if gap >= HEADING_GAP {
                return None;
            }
            continue;
        }
        if own_log(text) || is_fence(text) || header(text) || label_of_line(text).is_some() {
            continue;
        }
        return heading_line(text).map(Under::Heading);
    }
    (at.prev_end > at.floor).then_some(Under::Previous)
}

/// A line that can head a group of results (`numa01:`, `## Results for
/// hackbench`, `**Test: stream**`), without its Markdown marks and its
/// trailing `:`: a few words with a letter, not the end of a sentence, a
/// command (`$ perf stat -r 5 ./numa01`, options, paths, redirections) or
/// a mail header.
pub fn heading_line(text: &str) -> Option<String> {
    let t = text.trim();
    if t.starts_with('$') {
        return None;
    }
    let emphasis = |c: char| matches!(c, '*' | '_');
    let t = t.trim_start_matches('#').trim().trim_matches(emphasis);
    let t = t.trim_end_matches(':').trim().trim_matches(emphasis);
    let t = t.trim_end_matches(':').trim();
    let words = t.split_whitespace().count();
    let mail_header = ["subject:", "from:", "date:", "to:", "cc:", "message-id:"]
        .iter()
        .any(|h| t.to_ascii_lowercase().starts_with(h));
    if words == 0
        || words > 6
        || t.len() > 48
        || mail_header
        || !t.chars().any(|c| c.is_alphabetic())
        || t.ends_with(['.', ',', ';', '?', '!'])
        || t.starts_with('-')
        || t.contains(" -")
        || t.contains("--")
        || t.contains("   ")
        || t.matches('(').count() != t.matches(')').count()
        || t.contains(['/', '>', '<', '|', '`', '$', '='])
    {
        return None;
    }
    Some(t.to_string())
}

/// Words that count repetitions when a number of its own follows them
/// (`run 1`, `iteration 4`, `Test 2`).
const REPETITION_WORDS: &[&str] = &[
    "run",
    "iteration",
    "iter",
    "test",
    "pass",
    "round",
    "trial",
    "attempt",
    "try",
    "rep",
    "repeat",
    "repetition",
    "loop",
    "sample",
    "no",
];

/// What a heading says a block measures, for its identity: the heading
/// without its repetition numbers. A number standing as its own word
/// (`#3`, `(2)`), with a repetition word before it (`run 1`, `iteration
/// 4`, `Test 2`), goes: runs under `run 1:` and `run 2:` are samples of
/// one measurement. Digits inside a word name something and stay
/// (`numa01`, `copy-16`, `stream-8`). `None` when nothing is left.
pub fn heading_identity(heading: &str) -> Option<String> {
    let core = |w: &str| -> String {
        w.trim_matches(|c: char| matches!(c, ':' | '#' | '(' | ')' | '[' | ']' | ',' | ';' | '.'))
            .to_string()
    };
    let words: Vec<&str> = heading.split_whitespace().collect();
    let mut kept: Vec<&str> = Vec::new();
    for &w in &words {
        let c = core(w);
        if !c.is_empty() && c.chars().all(|c| c.is_ascii_digit()) {
            let after_word = kept
                .last()
                .is_some_and(|p| REPETITION_WORDS.contains(&core(p).to_lowercase().as_str()));
            // `#3`, `(2)`, `[4]`: marked as a count; `8 threads` names a
            // setting and stays.
            let marked = w.contains(['#', '(', '[']);
            if after_word || marked || words.len() == 1 {
                if after_word {
                    kept.pop();
                }
                continue;
            }
        }
        kept.push(w);
    }
    let out = kept.join(" ");
    let out = out
        .trim_matches(|c: char| matches!(c, ':' | ',' | ';' | '-' | '(' | '[') || c.is_whitespace())
        .to_string();
    (!out.is_empty() && out.chars().any(|c| c.is_alphanumeric())).then_some(out)
}

/// The heading of every labelled block (not a table): the one above its
/// label lines, that of the labelled block above it when only blank
/// lines are between, or that of the block it is a quoted copy of.
fn label_headings(blocks: &mut [Scanned]) {
    for b in 0..blocks.len() {
        let Some(cur) = blocks.get(b) else { continue };
        let heading = if cur.block.label.is_none() || matches!(cur.block.body, BlockBody::Table(_))
        {
            None
        } else if let Some(o) = cur.block.duplicate_of.filter(|&o| o < b) {
            blocks.get(o).and_then(|o| o.block.heading.clone())
        } else {
            match &cur.under {
                Some(Under::Heading(h)) => Some(h.clone()),
                Some(Under::Previous) => b
                    .checked_sub(1)
                    .and_then(|p| blocks.get(p))
                    .filter(|p| {
                        p.block.message == cur.block.message
                            && p.block.quote_level == cur.block.quote_level
                            && p.block.label.is_some()
                    })
                    .and_then(|p| p.block.heading.clone()),
                None => None,
            }
        };
        if let Some(cur) = blocks.get_mut(b) {
            cur.block.heading = heading;
        }
    }
}

/// A block right under a labelled one, with nothing but blank lines
/// between (`**Unpatched**`, its read summary, its write summary), is on
/// the same side: it takes that label, and is not paired as the other side.
fn continue_labels(blocks: &mut [Scanned]) {
    for b in 1..blocks.len() {
        let (head, tail) = blocks.split_at_mut(b);
        let (Some(a), Some(c)) = (head.last(), tail.first_mut()) else {
            continue;
        };
        if !c.continues
            || c.block.label.is_some()
            || a.block.message != c.block.message
            || a.block.quote_level != c.block.quote_level
            || a.column_label.is_some()
            || c.column_label.is_some()
            || holds_columns(&a.block.body)
            || holds_columns(&c.block.body)
        {
            continue;
        }
        if let Some(label) = a.block.label.clone() {
            c.block.label = Some(label);
        }
    }
}

/// Whether two blocks of one kind measure something in common: metrics
/// blocks must share a metric name (a read summary and a write summary are
/// not two sides of one comparison); other kinds always do.
fn comparable(a: &BlockBody, c: &BlockBody) -> bool {
    match (a, c) {
        (BlockBody::Metrics(x), BlockBody::Metrics(y)) => x
            .metrics
            .iter()
            .any(|m| y.metrics.iter().any(|n| n.name == m.name)),
        _ => true,
    }
}

/// The kernel a block names itself: the ftrace header's version, or the one
/// kernel every mmtests column ran.
fn body_kernel(body: &BlockBody) -> Option<String> {
    match body {
        BlockBody::FtraceLatency(f) => f.kernel.clone(),
        BlockBody::Table(t) => {
            let first = t.column_kernels.first()?;
            t.column_kernels
                .iter()
                .all(|k| k == first)
                .then(|| first.clone())
        }
        BlockBody::Cyclictest(_)
        | BlockBody::Rtla(_)
        | BlockBody::Time(_)
        | BlockBody::Metrics(_)
        | BlockBody::Counters(_)
        | BlockBody::LockContention(_)
        | BlockBody::Distribution(_)
        | BlockBody::Profile(_) => None,
    }
}

/// Two results of the same kind in a row in one message, one labelled by
/// its prose: the other one is the other side of the comparison. Not when
/// the side it would be given is labelled by its own prose next to it
/// (`Without:` run, run, `With:` run, run): the unlabelled run then
/// repeats its neighbour's side, which the prose does not say.
fn pair_labels(blocks: &mut [Scanned]) {
    // Whether `k`'s own label is `side`, `k` a neighbour of `of` in the
    // same comparison. Blocks past `b` are not relabelled yet, and a block
    // before `b - 1` relabelled "before" leaves `b - 1` labelled "after",
    // so the labels read here are the prose's wherever they matter.
    let labelled = |blocks: &[Scanned], k: usize, of: usize, side: &str| {
        matches!((blocks.get(k), blocks.get(of)), (Some(x), Some(y))
            if same_message_kind_and_quote(x, y) && x.block.label.as_deref() == Some(side))
    };
    for b in 1..blocks.len() {
        let after_c = labelled(blocks, b + 1, b, "after");
        let before_a = b >= 2 && labelled(blocks, b - 2, b - 1, "before");
        let (head, tail) = blocks.split_at_mut(b);
        let (Some(a), Some(c)) = (head.last_mut(), tail.first_mut()) else {
            continue;
        };
        if !same_message_kind_and_quote(a, c)
            || a.column_label.is_some()
            || c.column_label.is_some()
            || !comparable(&a.block.body, &c.block.body)
        {
            continue;
        }
        match (a.block.label.as_deref(), c.block.label.as_deref()) {
            (None, Some("after")) if !before_a => a.block.label = Some("before".into()),
            (Some("before"), None) if !after_c => c.block.label = Some("after".into()),
            _ => {}
        }
    }
}

/// Two blocks of one kind at one quote level in one message.
fn same_message_kind_and_quote(x: &Scanned, y: &Scanned) -> bool {
    x.block.message == y.block.message
        && x.block.kind() == y.block.kind()
        && x.block.quote_level == y.block.quote_level
}

/// A block whose content is already in an earlier block, quoted deeper or
/// repeated in another message, points at it with `duplicate_of`.
fn mark_duplicates(blocks: &mut [Scanned]) {
    for j in 1..blocks.len() {
        let (head, tail) = blocks.split_at_mut(j);
        let Some(cur) = tail.first_mut() else {
            continue;
        };
        let found = head.iter().position(|old| {
            old.block.duplicate_of.is_none()
                && (cur.block.quote_level.unwrap_or(0) > old.block.quote_level.unwrap_or(0)
                    || cur.block.message != old.block.message)
                && contained(&cur.block.body, &old.block.body)
        });
        if let Some(i) = found {
            cur.block.duplicate_of = Some(i);
            if cur.block.label.is_none() {
                cur.block.label = head.get(i).and_then(|o| o.block.label.clone());
            }
        }
    }
}

/// Whether `new` repeats (part of) `old`: equal, or for cyclictest and
/// tables a subset of the threads / rows.
fn contained(new: &BlockBody, old: &BlockBody) -> bool {
    match (new, old) {
        (BlockBody::Cyclictest(n), BlockBody::Cyclictest(o)) => {
            !n.threads.is_empty() && n.threads.iter().all(|t| o.threads.contains(t))
        }
        (BlockBody::Table(n), BlockBody::Table(o)) => {
            n.style == o.style && !n.rows.is_empty() && n.rows.iter().all(|r| o.rows.contains(r))
        }
        (BlockBody::FtraceLatency(n), BlockBody::FtraceLatency(o)) => {
            n.tracer == o.tracer
                && n.latency_us == o.latency_us
                && n.task == o.task
                && n.cpu == o.cpu
        }
        _ => new == old,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_and_fences_are_no_prose() {
        assert!(is_prompt("pi@raspberry:~$ sudo cyclictest -p 99 -t5"));
        assert!(is_prompt("root@host:/# perf stat -a sleep 1"));
        assert!(is_prompt("$ hackbench -g 16"));
        assert!(!is_prompt("Before we install the kernel: $ 5 saved"));
        assert!(!is_prompt("# Max Latencies: 00090"));
        assert!(is_fence("``` bash"));
        assert!(is_fence("```txt"));
        assert!(!is_fence("``` Performance counter stats"));
    }

    #[test]
    fn markdown_headings() {
        for t in ["# Results", "### Boot 3", "  ###### six", "## "] {
            assert!(is_markdown_heading(t), "{t}");
        }
        for t in ["####### seven", "#hashtag", "#", "x # y"] {
            assert!(!is_markdown_heading(t), "{t}");
        }
    }

    #[test]
    fn headings_of_several_lines_and_past_the_tool_s_log() {
        let run = |pid: u32, ops: u32| {
            format!(
                "stress-ng: info:  [{pid}] dispatching hogs: 8 mmapfork\nstress-ng: info:  [{pid}] stressor       bogo ops real time  usr time  sys time   bogo ops/s   bogo ops/s\nstress-ng: info:  [{pid}]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\nstress-ng: info:  [{pid}] mmapfork       {ops}      1.09      2.48      6.01        29.36         3.77\n"
            )
        };
        let text = format!("plain:\n\n{}\nwith the fix:\n\n{}", run(1, 32), run(2, 40));
        let doc = crate::parse(text.as_bytes(), None).unwrap();
        let labels: Vec<Option<&str>> = doc.blocks.iter().map(|b| b.label.as_deref()).collect();
        assert_eq!(labels, [Some("plain"), Some("with-the-fix")]);
        let block = "Wakeup Latencies percentiles (usec) runtime 10 (s) (100 total samples)\n\t  50.0th: 5          (50 samples)\n\t* 99.0th: 9          (1 samples)\n\t  min=1, max=12\n";
        let text = format!("stock:\nNO_FEATURE\n{block}\n\nFEATURE\n{block}");
        let doc = crate::parse(text.as_bytes(), None).unwrap();
        let labels: Vec<Option<&str>> = doc.blocks.iter().map(|b| b.label.as_deref()).collect();
        assert_eq!(labels, [Some("stock-no_feature"), Some("feature")]);
        // The end of a paragraph of prose is not a heading.
        let text = format!(
            "We ran the test twice on the same box and got\nthe two runs below.\n{block}\n\nand then\n{block}"
        );
        let doc = crate::parse(text.as_bytes(), None).unwrap();
        assert_eq!(doc.blocks.first().and_then(|b| b.label.as_deref()), None);
    }

    #[test]
    fn a_time_report_is_headed_above_its_command_and_the_command_s_output() {
        let run = |out: u32, real: &str| {
            format!(
                "time ./ring_test --parallel\nGuest: notified {out}\nHost: pinged 68278\n\nreal\t{real}\nuser\t0m6.437s\nsys\t0m8.010s\n"
            )
        };
        let text = format!(
            "Results of the test, no change:\nBefore:\n{}\nAfter:\n{}",
            run(10036893, "0m14.463s"),
            run(10036709, "0m14.196s")
        );
        let doc = crate::parse(text.as_bytes(), None).unwrap();
        let labels: Vec<Option<&str>> = doc
            .blocks
            .iter()
            .filter(|b| matches!(b.body, BlockBody::Time(_)))
            .map(|b| b.label.as_deref())
            .collect();
        assert_eq!(labels, [Some("before"), Some("after")]);
    }

    #[test]
    fn numbers_of_their_own_repeat_a_run_digits_in_a_name_do_not() {
        let run = |max: u32| {
            format!(
                "T: 0 ( 1234) P:99 I:1000 C:  10000 Min:      2 Act:    4 Avg:    3 Max:   {max}\n"
            )
        };
        let labels = |a: &str, b: &str| -> Vec<Option<String>> {
            let text = format!("{a}\n{}\n{b}\n{}", run(17), run(23));
            let doc = crate::parse(text.as_bytes(), None).unwrap();
            doc.blocks.iter().map(|b| b.label.clone()).collect()
        };
        assert_eq!(labels("run 1:", "run 2:"), [None, None]);
        assert_eq!(labels("Run #1", "Run #2"), [None, None]);
        assert_eq!(
            labels("numa01:", "numa02:"),
            [Some("numa01".to_string()), Some("numa02".to_string())]
        );
        // A number before a noun is a setting, not a repetition.
        assert_eq!(
            labels("4 threads:", "8 threads:"),
            [Some("4-threads".to_string()), Some("8-threads".to_string())]
        );
        assert_eq!(labels("iteration 3:", "iteration 4:"), [None, None]);
    }

    #[test]
    fn a_labelled_block_keeps_the_heading_it_is_printed_under() {
        let elapsed = |label: &str, secs: &str| {
            format!("\t{label}: {secs} +- 0.50 seconds time elapsed  ( +-  0.40% )\n")
        };
        let headings = |text: &str| -> Vec<(Option<String>, Option<String>)> {
            let doc = crate::parse(text.as_bytes(), None).unwrap();
            doc.blocks
                .iter()
                .map(|b| (b.label.clone(), b.heading.clone()))
                .collect()
        };
        let pair = |h: &str, a: &str, b: &str| {
            format!("{h}\n{}{}", elapsed("base", a), elapsed("patched", b))
        };
        let some = |l: &str, h: &str| (Some(l.to_string()), Some(h.to_string()));
        let text = format!(
            "{}\n{}",
            pair("numa01:", "146.88", "147.45"),
            pair("numa02:", "16.03", "16.12")
        );
        assert_eq!(
            headings(&text),
            [
                some("base", "numa01"),
                some("after", "numa01"),
                some("base", "numa02"),
                some("after", "numa02"),
            ]
        );
        // Markdown marks and the colon go; a command line is no heading.
        let text = pair("## Results for hackbench", "1.5", "1.4");
        assert_eq!(headings(&text)[1], some("after", "Results for hackbench"));
        let text = pair("$ perf stat -r 10 ./numa01", "1.5", "1.4");
        assert_eq!(headings(&text)[0], (Some("base".to_string()), None));
        // A label read from a prose line: the heading is above that line,
        // and the other side below it shares it.
        let run =
            " Performance counter stats for 'hackbench':\n\n       1.50 seconds time elapsed\n";
        let text = format!("Test: stream\n\nBefore:\n{run}\nAfter:\n{run}");
        assert_eq!(
            headings(&text),
            [
                some("before", "Test: stream"),
                some("after", "Test: stream")
            ]
        );
        // No heading: none kept.
        let text = format!("Before:\n{run}\nAfter:\n{run}");
        assert_eq!(
            headings(&text),
            [(Some("before".into()), None), (Some("after".into()), None)]
        );
        // A block paired as the other side later has no label lines: the
        // line above it is its own name, not a heading.
        let text = format!("Stock kernel\n{run}\nPatched\n{run}");
        assert_eq!(
            headings(&text),
            [(Some("before".into()), None), (Some("after".into()), None)]
        );
        // Side-by-side runs: their column header is a label line, the
        // line above it their heading.
        let text = "fork test:\n     vanilla                    patched\nreal    1m2.500s               real    0m58.125s\nuser    0m1.010s               user    0m0.990s\nsys     0m59.870s              sys     0m55.410s\n";
        assert_eq!(
            headings(text),
            [some("before", "fork test"), some("after", "fork test")]
        );
        // An unlabelled block has no heading of its own.
        let doc = crate::parse(run.as_bytes(), None).unwrap();
        assert_eq!(doc.blocks[0].heading, None);
        // Two runs under each side's line: the second run of a side
        // shares its side when only blank lines part them, and is never
        // the other side.
        let labels = |text: &str| -> Vec<Option<String>> {
            let doc = crate::parse(text.as_bytes(), None).unwrap();
            doc.blocks.iter().map(|b| b.label.clone()).collect()
        };
        let (b, a) = (Some("before".to_string()), Some("after".to_string()));
        let text = format!("Without this change:\n{run}\n{run}\nWith this change:\n{run}\n{run}");
        assert_eq!(labels(&text), [b.clone(), b.clone(), a.clone(), a.clone()]);
        let cmd = "# hackbench process 10 1000 -s 100000\n";
        let text = format!(
            "Without this change:\n{cmd}{run}\n{cmd}{run}\nWith this change:\n{cmd}{run}\n{cmd}{run}"
        );
        assert_eq!(labels(&text), [b, None, a, None]);
    }

    #[test]
    fn a_heading_s_identity_drops_repetition_numbers_not_names() {
        let id = |h: &str| heading_identity(h);
        for rep in [
            "run 1",
            "Run #2",
            "#3",
            "iteration 4",
            "Test 2",
            "(5)",
            "3.",
        ] {
            assert_eq!(id(rep), None, "{rep}");
        }
        assert_eq!(id("numa01").as_deref(), Some("numa01"));
        assert_eq!(id("copy-16").as_deref(), Some("copy-16"));
        assert_eq!(id("stream-8").as_deref(), Some("stream-8"));
        assert_eq!(id("hackbench run 2").as_deref(), Some("hackbench"));
        assert_eq!(id("hackbench (run 2)").as_deref(), Some("hackbench"));
        assert_eq!(id("hackbench, run 3").as_deref(), Some("hackbench"));
        assert_eq!(id("Test: stream").as_deref(), Some("Test: stream"));
        assert_eq!(id("stream (2)").as_deref(), Some("stream"));
        assert_eq!(id("hackbench #2").as_deref(), Some("hackbench"));
        // A number of a setting is no repetition.
        assert_eq!(id("4 threads").as_deref(), Some("4 threads"));
        assert_ne!(id("4 threads"), id("8 threads"));
        assert_eq!(heading_line("**numa02:**").as_deref(), Some("numa02"));
        assert_eq!(heading_line("Subject: [PATCH] mm: fix"), None);
        // The end of a wrapped command line.
        assert_eq!(heading_line("--bandwidth-log)"), None);
        // Column headers are labels, not a heading.
        assert_eq!(heading_line("vanilla          patched"), None);
        assert_eq!(heading_line("The results are below."), None);
        assert_eq!(
            heading_line("echo NO_RUN_TO_PARITY > /debug/sched/features"),
            None
        );
    }

    #[test]
    fn labels() {
        assert_eq!(
            label_of_line("The tracing results before modification are as follows:").as_deref(),
            Some("before")
        );
        assert_eq!(
            label_of_line("latency went to this:").as_deref(),
            Some("after")
        );
        assert_eq!(label_of_line("w/o patch   w/ patch"), None);
        assert_eq!(label_of_line("afterwards we beforehand"), None);
        assert_eq!(
            label_of_line("and do 10 times same test like what I have done before in IMX7D:"),
            None
        );
        assert_eq!(
            label_of_line("After applied this patch, it improved well.").as_deref(),
            Some("after")
        );
        let m: Vec<_> = cue_matches("w/o patch w/ patch")
            .into_iter()
            .map(|m| m.2)
            .collect();
        assert_eq!(m, ["before", "after"]);
        assert_eq!(label_of_header("batch-v1"), "batch-v1");
    }

    #[test]
    fn quoted_copies_and_pairs() {
        use crate::detect::{Scanned, by_name};
        use crate::document::{Block, Cyclictest, CyclictestThread};
        let text = "latency went to this:\nT0\n> load gave this:\n> T1\n> then:\n> T0";
        let lines = crate::lines::split(text);
        let thread = |max: f64| CyclictestThread {
            thread: 0,
            max_us: max,
            ..Default::default()
        };
        let block = |at: usize, max: f64, msg: usize| {
            let mut b = Block::new(
                [at as u64 + 1; 2],
                BlockBody::Cyclictest(Cyclictest {
                    threads: vec![thread(max)],
                    ..Default::default()
                }),
            );
            b.message = Some(msg);
            b.quote_level = Some(lines[at].quote);
            Scanned {
                block: b,
                format: by_name("cyclictest").unwrap(),
                column_label: None,
                fallback_label: None,
                first: at,
                last: at,
                continues: false,
                heading: None,
                under: None,
            }
        };
        let mut blocks = vec![
            block(1, 4449.0, 0),
            block(3, 66696.0, 1),
            block(5, 4449.0, 1),
        ];
        annotate(&mut blocks, &lines, &[(0, 2), (2, 6)]);
        let labels: Vec<_> = blocks.iter().map(|b| b.block.label.as_deref()).collect();
        assert_eq!(labels, [Some("after"), Some("before"), Some("after")]);
        let dups: Vec<_> = blocks.iter().map(|b| b.block.duplicate_of).collect();
        assert_eq!(dups, [None, None, Some(0)]);
    }

    #[test]
    fn boards() {
        assert_eq!(
            find_board("on the LicheePi 4A board").as_deref(),
            Some("LicheePi 4A")
        );
        assert_eq!(
            find_board("66ms in a i7-4790 box.").as_deref(),
            Some("i7-4790")
        );
        assert_eq!(
            find_board("32 cores of E5-2680 @ 2.70GHz").as_deref(),
            Some("E5-2680")
        );
        assert_eq!(find_board("E5-2680 v4 here").as_deref(), Some("E5-2680 v4"));
        assert_eq!(find_board("nothing"), None);
        assert_eq!(
            find_board("on a 4-core Loongson-3A5000 machine").as_deref(),
            Some("Loongson-3A5000")
        );
    }

    #[test]
    fn a_release_heading_each_result_is_that_result_s_kernel() {
        // Blocks of seed 003's cyclictest runs, each under its kernel.
        let t = |tid: u32, max: u32| {
            format!(
                "T: 0 ( {tid}) P:99 I:1000 C: 773124 Min:      1 Act:    6 Avg:    3 Max:   {max}\n"
            )
        };
        let text = format!(
            "The box is an i7-4790; first 6.6.58-stable was fine.\n\n6.12.0-rc5\n{}\n\
             6.9.12-stable\n{}\n6.10.14-stable +xx\n{}\n6.11.5-stable patched\n{}\n\
             and 2.43.0 alone:\n\n{}",
            t(4541, 53381),
            t(4928, 6327),
            t(6009, 62539),
            t(7001, 7001),
            t(8001, 8001),
        );
        let doc = crate::parse_str(&text, None).unwrap();
        let kernels: Vec<Option<&str>> = doc.blocks.iter().map(|b| b.kernel.as_deref()).collect();
        assert_eq!(
            kernels,
            [
                Some("6.12.0-rc5"),
                Some("6.9.12-stable"),
                Some("6.10.14-stable +xx"),
                Some("6.11.5-stable"),
                // `2.43.0` is no release: the nearest one above.
                Some("6.11.5-stable"),
            ]
        );
        assert_eq!(doc.blocks[3].label.as_deref(), Some("after"));
    }

    #[test]
    fn kernel_guesses_come_from_headers_and_full_releases_only() {
        assert_eq!(
            header_kernel("Linux box 6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian").as_deref(),
            Some("6.1.0-13-amd64")
        );
        assert_eq!(
            header_kernel("[    0.000000] Linux version 6.8.0-rc2 (gcc 13.2)").as_deref(),
            Some("6.8.0-rc2")
        );
        assert_eq!(header_kernel("Kernel: 5.15.0").as_deref(), Some("5.15.0"));
        assert_eq!(header_kernel("went from 6.12.0-rc5 to this"), None);
        // Splats name the kernel that crashed, not a measured one.
        assert_eq!(
            header_kernel("CPU: 0 PID: 7 Comm: kworker Not tainted 4.9.79-rt62 #1"),
            None
        );
        assert_eq!(
            prose_kernel("CPU: 0 PID: 7 Comm: kworker Not tainted 4.9.79-rt62 #1"),
            None
        );
        assert_eq!(
            prose_kernel("INFO: task kswapd0:90 blocked for more than 120 seconds on 4.9.79"),
            None
        );
        // Ranges and bare versions in prose are not a kernel.
        assert_eq!(prose_kernel("a regression since v6.10+"), None);
        assert_eq!(prose_kernel("beginning at v6.10, it was"), None);
        assert_eq!(
            prose_kernel("(6.12.0-rc5 running a build)").as_deref(),
            Some("6.12.0-rc5")
        );
        // A dirty build's `+` is part of its release, as `uname -r` and
        // the ftrace header print it.
        assert_eq!(
            prose_kernel("on 3.8.0-test+").as_deref(),
            Some("3.8.0-test+")
        );
        assert_eq!(
            find_kernel("Linux rpi 6.6.73-rt47-v8-16k-RTLC+ #1").as_deref(),
            Some("6.6.73-rt47-v8-16k-RTLC+")
        );
        assert_eq!(find_kernel("since v6.10+ only").as_deref(), Some("6.10"));
    }

    #[test]
    fn hints_say_which_line_they_were_read_from() {
        let text = "Linux box 6.1.0-13-amd64 #1 SMP\n\nCPU: 1 PID: 9 Comm: x Not tainted 4.9.79 #1\nrun on my i7-4790 box:\n\nT: 0 ( 1) P:99 I:1000 C: 10 Min: 1 Act: 2 Avg: 3 Max: 4\n";
        let doc = crate::parse_str(text, None).unwrap();
        let b = &doc.blocks[0];
        assert_eq!(
            (b.kernel.as_deref(), b.kernel_line),
            (Some("6.1.0-13-amd64"), Some(1))
        );
        assert_eq!(
            (b.board.as_deref(), b.board_line),
            (Some("i7-4790"), Some(4))
        );
    }

    #[test]
    fn kernels() {
        assert_eq!(
            find_kernel("(6.12.0-rc5 running osc)").as_deref(),
            Some("6.12.0-rc5")
        );
        assert_eq!(
            find_kernel("trace v1.1.5 on 6.5.0-rt6-r1208-00003-g999d221864bf").as_deref(),
            Some("6.5.0-rt6-r1208-00003-g999d221864bf")
        );
        assert_eq!(find_kernel("increase v6.10+").as_deref(), Some("6.10"));
        assert_eq!(find_kernel("2.34.1"), None);
        assert_eq!(find_kernel("took 5.10 seconds"), None);
        assert_eq!(find_kernel("git 2.34.1 here"), None);
        // Stable series, not releases.
        assert_eq!(find_kernel("6.6-stable review patch.  If anyone"), None);
        assert_eq!(prose_kernel("6.12-stable review patch."), None);
        assert_eq!(find_kernel("seen on 6.6.y and 6.1.y too"), None);
        // Code spans and full-width punctuation around a release.
        assert_eq!(
            header_kernel("内核：`5.13.19-xanmod1`").as_deref(),
            Some("5.13.19-xanmod1")
        );
        assert_eq!(
            find_kernel("built `6.12.0-rc5` (patched)").as_deref(),
            Some("6.12.0-rc5")
        );
        assert_eq!(
            find_kernel("Subject: [PATCH 6.6 000/744] 6.6.33-rc1 review").as_deref(),
            Some("6.6.33-rc1")
        );
    }

    #[test]
    fn an_underlined_kernel_heading_over_a_tools_log_lines() {
        let text = "5.12.0-rc6+\n-----------\nstress-ng: info:  [1430] dispatching hogs: 9 msg\nstress-ng: info:  [1430] successful run completed in 60.01s (1 min, 0.01 secs)\nstress-ng: info:  [1430] stressor       bogo ops real time  usr time  sys time   bogo ops/s   bogo ops/s\nstress-ng: info:  [1430]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\nstress-ng: info:  [1430] msg           237390147     60.01    104.03    255.85   3955872.56    659636.95\n";
        let doc = crate::parse_str(text, None).unwrap();
        assert_eq!(doc.blocks[0].kernel.as_deref(), Some("5.12.0-rc6+"));
        // A rule without a release above it names no kernel.
        let text = text.replacen("5.12.0-rc6+\n", "", 1);
        let doc = crate::parse_str(&text, None).unwrap();
        assert_eq!(doc.blocks[0].kernel, None);
    }

    #[test]
    fn a_sides_cue_over_the_command_that_ran_rtla() {
        let run = "rtla hwnoise -c 0 -d 2m -q\n\nHardware-related Noise\nduration:   0 00:02:00 | time is in us\nCPU Period       Runtime        Noise  % CPU Aval   Max Noise   Max Single          HW          NMI\n  0 #4171      112394904     36139505    67.84595       29015        13006        4533            0\n";
        let text = format!("Baseline without patches:\n{run}\nWith the patches applied:\n{run}");
        let doc = crate::parse_str(&text, None).unwrap();
        assert_eq!(doc.blocks.len(), 2);
        assert_eq!(doc.blocks[0].lines[0], 4, "the block starts at its title");
        assert_eq!(doc.blocks[0].label.as_deref(), Some("before"));
        assert_eq!(doc.blocks[1].label.as_deref(), Some("after"));
    }

    #[test]
    fn a_footnote_marker_over_a_tables_name() {
        let text = "See the files [3].\n\n[3]\nbefore1.csv\n\ntasks,processes,processes_idle,threads,threads_idle,linear\n0,0,100,0,100,0\n1,610132,74.98,594558,74.40,610132\n2,1230153,49.95,1184090,49.95,1220264\n";
        let lines = crate::lines::split(text);
        let doc = crate::parse_str(text, None).unwrap();
        let BlockBody::Table(_) = &doc.blocks[0].body else {
            panic!("{:?}", doc.blocks[0].body)
        };
        assert_eq!(
            heading_above(&doc.blocks[0].body, &lines, 5, 0).as_deref(),
            Some("before1.csv")
        );
    }

    #[test]
    fn a_heading_naming_linux_by_two_numbers() {
        let run = "  READ: bw=1000MiB/s (1049MB/s), 1000MiB/s-1000MiB/s (1049MB/s-1049MB/s), io=10.0GiB (10.7GB), run=10001-10001msec\n";
        let text = format!(
            "Ubuntu 18.04 / Linux 5.4.0:\nRun status group 0 (all jobs):\n{run}\nUbuntu 18.04 / Linux 5.17:\nRun status group 0 (all jobs):\n{run}"
        );
        let doc = crate::parse_str(&text, None).unwrap();
        let kernels: Vec<Option<&str>> = doc.blocks.iter().map(|b| b.kernel.as_deref()).collect();
        assert_eq!(kernels, [Some("5.4.0"), Some("5.17")]);
        // In prose a release needs its three numbers.
        assert_eq!(prose_kernel("fixed since Linux 5.17"), None);
    }

    #[test]
    fn a_kernel_heading_over_the_command_that_ran_the_tool() {
        // The command between the heading and the block is the block's
        // own preamble: the heading names the kernel, not a `Kernel:`
        // line further up.
        let text = "Kernel: 6.1.0\n\n6.12.0-rc5\n$ perf stat -e cycles ./a.out\n\n Performance counter stats for './a.out':\n\n     1,234,567      cycles\n\n       0.501234567 seconds time elapsed\n";
        let doc = crate::parse_str(text, None).unwrap();
        assert_eq!(doc.blocks.len(), 1);
        assert_eq!(doc.blocks[0].kernel.as_deref(), Some("6.12.0-rc5"));
    }
}
