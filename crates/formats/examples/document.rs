//! Print the parse document of a file (or stdin with `-`) as JSON, the way
//! `reclaimlab parse` does, without building the service.
//!
//! Usage: `document FILE|-`

use std::io::Read;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: document FILE|-");
        return ExitCode::from(2);
    };
    let mut bytes = Vec::new();
    let read = if path == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(&path).map(|b| bytes = b)
    };
    if let Err(e) = read {
        eprintln!("{path}: {e}");
        return ExitCode::from(1);
    }
    match reclaimlab_formats::parse(&bytes, Some(&path)) {
        Ok(doc) => {
            println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}
