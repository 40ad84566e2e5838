//! Input lines with their 1-based numbers and mail quote level.

/// One line of input: its 1-based number in the whole input, the text with
/// any `>` quote prefix removed, and how many `>` markers there were.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    pub no: u64,
    pub text: &'a str,
    pub quote: u32,
}

/// Split text into lines (accepting `\n` and `\r\n`), stripping mail quote
/// prefixes (`> `, `>> `, `> > `).
pub fn split(text: &str) -> Vec<Line<'_>> {
    let mut lines: Vec<Line<'_>> = text
        .lines()
        .enumerate()
        .map(|(i, raw)| {
            let (quote, text) = quote_and_text(raw);
            Line {
                no: i as u64 + 1,
                text,
                quote,
            }
        })
        .collect();
    undiff(&mut lines);
    requote_blanks(&mut lines);
    lines
}

/// A quote's blank line that a mail client wrote as a lone space, its `>`
/// lost (` ` between `>      Total time: 0.082 [sec]` and `>   8.246400
/// usecs/op`): a blank line of that quote. A line that is truly empty may
/// be the replier's own and stays unquoted.
pub fn requote_blanks(lines: &mut [Line<'_>]) {
    for i in 1..lines.len().saturating_sub(1) {
        let (prev, next) = (lines[i - 1].quote, lines[i + 1].quote);
        let l = &mut lines[i];
        if l.quote == 0
            && !l.text.is_empty()
            && l.text.trim().is_empty()
            && prev > 0
            && next == prev
        {
            l.quote = prev;
        }
    }
}

/// Inside a ```` ```diff ```` fence (output pasted as a diff to colour it:
/// removed lines red, added lines green), each line's first character is
/// the diff's marker (`-`, `+` or a space): it is taken off, so that the
/// output reads as printed. A patch's added lines outside a fence (a
/// documentation patch adding an example screen) are read without their
/// `+` from the fourth of a run of them on: what a patch adds is text to
/// read, and a run of three tells it from a line that starts with a sign.
/// Fed line by line, in order.
#[derive(Debug, Default, Clone)]
pub struct DiffFence {
    inside: Option<u32>,
    /// Quote level and length of the run of `+` lines so far.
    added: (u32, usize),
}

/// Added lines of a patch read before their `+` is taken off.
const ADDED_RUN: usize = 3;

impl DiffFence {
    /// Whether the last line fed was inside the fence.
    pub fn inside(&self) -> bool {
        self.inside.is_some()
    }

    /// The text of the next line as recognizers read it.
    pub fn strip<'a>(&mut self, quote: u32, text: &'a str) -> &'a str {
        let t = text.trim();
        match self.inside {
            None if t == "```diff" || t == "~~~diff" => self.inside = Some(quote),
            Some(q) if quote == q && (t == "```" || t == "~~~") => self.inside = None,
            Some(q) if quote == q => {
                if let Some(rest) = text.strip_prefix(['-', '+', ' ']) {
                    return rest;
                }
            }
            None => {
                let added = text.starts_with('+') && !text.starts_with("+++ ");
                self.added = match (added, self.added) {
                    (false, _) => (quote, 0),
                    (true, (q, n)) if q == quote => (quote, n + 1),
                    (true, _) => (quote, 1),
                };
                if self.added.1 > ADDED_RUN {
                    return &text[1..];
                }
            }
            _ => {}
        }
        text
    }
}

/// [`DiffFence`] over lines already split.
pub fn undiff(lines: &mut [Line<'_>]) {
    let mut fence = DiffFence::default();
    for l in lines.iter_mut() {
        l.text = fence.strip(l.quote, l.text);
    }
}

/// A raw line's quote level and the text every recognizer reads: the
/// `>` markers and a fence opening on the same line taken off. Every path
/// that makes [`Line`]s (whole texts, mails, the streaming scan) uses it.
pub fn quote_and_text(raw: &str) -> (u32, &str) {
    let (quote, rest) = strip_quote(raw);
    (quote, after_fence(after_bar(after_comment(rest))))
}

/// Lines a replier's comment inside a quoted block may take.
const REPLY_LINES: usize = 10;

/// Where the rows of a quoted block (a profile, a /proc dump) go on after
/// a replier's comment (less quoted lines, blank lines) that starts at
/// `at`: the next line at the block's quote level, when `is_row` says it
/// is one of its rows. `None` for an unquoted block, a deeper quote, or
/// no comment at all.
pub fn resume_after_reply(
    lines: &[Line<'_>],
    at: usize,
    quote: u32,
    is_row: impl Fn(&str) -> bool,
) -> Option<usize> {
    if quote == 0 {
        return None;
    }
    let mut comment = false;
    for (k, l) in lines.iter().enumerate().skip(at).take(REPLY_LINES) {
        let blank = l.text.trim().is_empty();
        if l.quote == quote && !blank {
            return (comment && is_row(l.text)).then_some(k);
        }
        if l.quote > quote {
            return None;
        }
        comment |= !blank;
    }
    None
}

/// A line a poster put where rows were left out: `...`, `…`, `[...]`,
/// `[ ... ]`, `[snip]`, `<snip>`, `<...>`, `...snip...`, `... snip ...`,
/// `--snip--`, `[etc]`, `[etc ...]`, `[...] more lines`, and the lines of
/// one `.` each that draw a vertical ellipsis. Every format that
/// lists rows reads past it; what it elided is not guessed.
pub fn is_elision(text: &str) -> bool {
    let t = text.trim();
    if t.starts_with("[...]") || t.starts_with("<snip>") || t == "." {
        return true;
    }
    let (inner, bracketed) = match t
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .or_else(|| t.strip_prefix('<').and_then(|r| r.strip_suffix('>')))
    {
        Some(inner) => (inner.trim(), true),
        None => (t, false),
    };
    if bracketed && (inner == "etc" || inner.starts_with("etc ")) {
        return true;
    }
    let word = inner.trim_matches(|c: char| matches!(c, '.' | '-' | '\u{2026}' | ' '));
    match word {
        "" => inner.contains("...") || inner.contains('\u{2026}'),
        "snip" | "snipped" => bracketed || word.len() < inner.len(),
        _ => false,
    }
}

/// Output kept in a source file's line comments (`    //   Time (mean ±
/// σ):  1.8 ms` in a Zig, Rust, Go or C file): the `//` and one space
/// after it are taken off, with the indentation before them, as a quote
/// marker is. A `//` glued to a word (`//go:build`) or followed by a
/// third slash (a doc comment's `///` keeps its marker) stays.
fn after_comment(text: &str) -> &str {
    let Some(rest) = text.trim_start().strip_prefix("//") else {
        return text;
    };
    match rest.strip_prefix(' ') {
        Some(r) => r,
        None if rest.is_empty() => rest,
        None => text,
    }
}

/// A bar some people set before pasted output (`| real    20m6,217s`,
/// `|` alone for its blank lines), also inside a quote (`> | `): taken off
/// like a quote marker. A line with a second `|` is a table's row and
/// keeps its bars.
fn after_bar(text: &str) -> &str {
    match text.strip_prefix('|') {
        Some(rest) if !rest.contains('|') && (rest.is_empty() || rest.starts_with(' ')) => {
            rest.strip_prefix(' ').unwrap_or(rest)
        }
        _ => text,
    }
}

/// A Markdown fence that opens on the first line of what it holds
/// (```` ``` Performance counter stats for 'gzip':````): that line is the
/// text after the fence. A fence alone, or with an info string right after
/// it (```` ```bash ````), is kept as it is.
fn after_fence(text: &str) -> &str {
    let t = text.trim_start();
    let Some(rest) = t.strip_prefix("```").or_else(|| t.strip_prefix("~~~")) else {
        return text;
    };
    // An info string set apart by a space (```` ``` bash ````) is one
    // word: the fence stays a fence.
    let words = rest.split_whitespace().count();
    if rest.starts_with(' ') && words > 1 && !rest.contains(['`', '~']) {
        rest.strip_prefix(' ').unwrap_or(rest)
    } else {
        text
    }
}

/// The command of a shell command line, after its prompt: `$ perf stat
/// ...`, perf's documentation's `% perf bench ...`, `pi@raspberry:~$ sudo
/// cyclictest ...`, `root@host:/# ...`, `[user@host dir]$ ...`. A bare
/// `# ` is no prompt here (output's comments start so); callers that know
/// the tool's name may accept it themselves.
pub fn after_prompt(text: &str) -> Option<&str> {
    let t = text.trim_start();
    if let Some(cmd) = t.strip_prefix("$ ").or_else(|| t.strip_prefix("% ")) {
        return Some(cmd.trim_start());
    }
    let at = t.find(['$', '#'])?;
    let (before, after) = t.split_at(at);
    let cmd = after.get(1..)?.strip_prefix(' ')?;
    let host_end = |c: char| c == '~' || c == ':' || c == '/' || c == ']' || c.is_alphanumeric();
    let bracketed = before.starts_with('[') && before.ends_with(']');
    (before.contains('@') && before.ends_with(host_end) && (bracketed || !before.contains(' ')))
        .then(|| cmd.trim_start())
}

/// Remove leading `>` markers (optionally separated by single spaces).
pub fn strip_quote(raw: &str) -> (u32, &str) {
    let mut rest = raw;
    let mut level = 0;
    loop {
        let t = rest.strip_prefix(' ').filter(|_| level > 0).unwrap_or(rest);
        if let Some(r) = t.strip_prefix('>') {
            level += 1;
            rest = r;
        } else {
            break;
        }
    }
    if level > 0 {
        rest = rest.strip_prefix(' ').unwrap_or(rest);
    }
    (level, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patchs_added_lines_read_without_their_plus_from_a_run_of_three_on() {
        let lines = split(
            "+EXAMPLE\n+\n+# rtla timerlat top\n+  CPU COUNT\n+    0 #1015\n+1 tail\n-2 kept\n+3\n",
        );
        let texts: Vec<&str> = lines.iter().map(|l| l.text).collect();
        assert_eq!(
            texts,
            [
                "+EXAMPLE",
                "+",
                "+# rtla timerlat top",
                "  CPU COUNT",
                "    0 #1015",
                "1 tail",
                "-2 kept",
                "+3"
            ]
        );
        // A file header is no added line.
        let lines = split("+++ b/a\n+++ b/b\n+++ b/c\n+++ b/d\n");
        assert_eq!(lines[3].text, "+++ b/d");
    }

    #[test]
    fn diff_fence_markers_come_off() {
        let l = split("```diff\n |  a |\n-| 12 |\n+| 13 |\n```\n- item\n");
        assert_eq!(
            (l[1].text, l[2].text, l[3].text),
            ("|  a |", "| 12 |", "| 13 |")
        );
        assert_eq!(l[5].text, "- item");
    }

    #[test]
    fn elision_lines() {
        for t in [
            "...",
            "…",
            "[...]",
            "[ ... ]",
            "[snip]",
            "<snip>",
            "<...>",
            "...snip...",
            "  ... snip ...",
            "--snip--",
            "[etc]",
            "[etc more lines]",
            "[...] 40 more lines",
        ] {
            assert!(is_elision(t), "{t:?}");
        }
        for t in [
            "snip",
            "---",
            "-",
            "etc",
            "[1.5]",
            "... and then",
            "<idle>",
            ". .",
        ] {
            assert!(!is_elision(t), "{t:?}");
        }
    }

    #[test]
    fn line_comment_markers_come_off() {
        let l = split(
            "    // Benchmark 1: ./micro\n    //   Time (mean):  1.8 ms\n    //\n//go:build linux\n/// doc\n> // quoted\n",
        );
        let texts: Vec<&str> = l.iter().map(|l| l.text).collect();
        assert_eq!(
            texts,
            [
                "Benchmark 1: ./micro",
                "  Time (mean):  1.8 ms",
                "",
                "//go:build linux",
                "/// doc",
                "quoted"
            ]
        );
        assert_eq!(l[5].quote, 1);
    }

    #[test]
    fn fence_on_the_first_line_of_its_block() {
        let l = split("``` Performance counter stats for 'gzip file1':\n```bash\n```\n~~~ T: 0\n");
        assert_eq!(l[0].text, "Performance counter stats for 'gzip file1':");
        assert_eq!(l[1].text, "```bash");
        assert_eq!(l[2].text, "```");
        assert_eq!(l[3].text, "T: 0");
        assert_eq!(split("``` bash\n")[0].text, "``` bash");
        assert_eq!(split("``` `inline` ```")[0].text, "``` `inline` ```");
    }

    #[test]
    fn commands_after_their_prompt() {
        assert_eq!(
            after_prompt("pi@raspberry:~$ sudo cyclictest -p 99"),
            Some("sudo cyclictest -p 99")
        );
        assert_eq!(
            after_prompt("root@host:/# perf stat -a"),
            Some("perf stat -a")
        );
        assert_eq!(after_prompt("[me@box linux]$ make -j8"), Some("make -j8"));
        assert_eq!(after_prompt("$ hackbench -g 16"), Some("hackbench -g 16"));
        assert_eq!(
            after_prompt("% perf bench sched pipe"),
            Some("perf bench sched pipe")
        );
        assert_eq!(after_prompt("Before the kernel: $ 5 saved"), None);
        assert_eq!(after_prompt("# Max Latencies: 00090"), None);
        assert_eq!(after_prompt("costs $5"), None);
    }

    #[test]
    fn a_bar_before_pasted_output_comes_off() {
        let l = split("> | real    20m6,217s\n> | \n|\n| a | b |\n|x\n   |  foo();\n");
        assert_eq!(
            (l[0].quote, l[0].text, l[1].text, l[2].text),
            (1, "real    20m6,217s", "", "")
        );
        // A table's row, a bar without a space, a function_graph line.
        assert_eq!(
            (l[3].text, l[4].text, l[5].text),
            ("| a | b |", "|x", "   |  foo();")
        );
    }

    #[test]
    fn quote_levels() {
        assert_eq!(strip_quote("> > T: 0"), (2, "T: 0"));
        assert_eq!(strip_quote(">> x"), (2, "x"));
        assert_eq!(strip_quote("plain"), (0, "plain"));
        assert_eq!(strip_quote(" => frame"), (0, " => frame"));
    }
}
