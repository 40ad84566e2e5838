//! `reclaimlab`: parses the command line and dispatches. Nothing else.

use clap::Parser;
use reclaimlab::cli;
use reclaimlab::config::{Cli, Command};

fn main() -> std::process::ExitCode {
    let args = Cli::parse();
    cli::init_tracing();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = rt.block_on(async move {
        match args.command {
            Command::Serve(a) => cli::serve::run(a).await,
            Command::Migrate(a) => cli::migrate(a).await,
            Command::Token(a) => cli::token::run(a).await,
            Command::Upload(a) => cli::upload::run(a).await,
            Command::Parse(a) => cli::parse(a),
            Command::Demo(a) => cli::demo::run(a).await,
            Command::Simulate(a) => cli::simulate::run(a),
            Command::RebuildOverview(a) => cli::rebuild_overview(a).await,
            Command::Openapi => {
                print!("{}", reclaimlab::web::api::doc::json());
                Ok(())
            }
            Command::SimExec => reclaimlab::jobs::exec::sim_exec_main(),
        }
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
