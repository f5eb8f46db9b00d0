//! The `clsw` command: every entry point of the library from a terminal.

mod align;
mod args;
#[cfg(feature = "bench")]
mod bench;
mod devices;
mod distance;
mod out;
mod progress;
mod psse;
mod scan;
mod sw3;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use clsw::mpi::Comm;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "clsw", version, about = "GPU sequence comparison (OpenCL): Smith-Waterman and friends")]
struct Cli {
    /// CPU threads for the host work and the native CPU path, at most 4 per logical CPU
    /// [default: every core].
    #[arg(long, global = true)]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

/// The most `--threads` per logical CPU.
const THREADS_PER_CPU: usize = 4;

/// Settings of the whole process: the thread pool, and a check of `CLSW_NATIVE_ISA`
/// (the library ignores a name it does not know; the command refuses it).
fn set_up(cli: &Cli) -> clsw::Result<()> {
    clsw::scan::native::Level::from_env()?;
    if let Some(threads) = cli.threads {
        if threads == 0 {
            return Err(clsw::Error::InvalidArgument("--threads must be at least 1".into()));
        }
        // Each thread is a stack and a share of the cores: past a few per CPU they only
        // cost (100,000 of them stalled the machine before any work).
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        if threads > THREADS_PER_CPU * cpus {
            return Err(clsw::Error::InvalidArgument(format!(
                "--threads {threads}: at most {THREADS_PER_CPU} per logical CPU, {} on this machine ({cpus} CPUs)",
                THREADS_PER_CPU * cpus
            )));
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .map_err(|e| clsw::Error::InvalidArgument(format!("--threads: {e}")))?;
    }
    Ok(())
}

#[derive(Subcommand)]
enum Command {
    /// List OpenCL platforms and devices, and run each device's self-test.
    #[command(after_help = "Example:\n  clsw devices")]
    Devices,
    /// Align every sequence of A with every sequence of B (local, with traceback).
    #[command(
        after_help = "Example (from the source tree):\n  clsw align tests/data/gap_pairs.fasta tests/data/queries10.fasta --outfmt tabular"
    )]
    Align(align::AlignArgs),
    /// Search a database with queries: every subject's exact Smith-Waterman score, the
    /// best hits with E-values and alignments.
    #[command(
        after_help = "Example (from the source tree):\n  clsw scan -q tests/data/queries10.fasta -d tests/data/uniprot300.fasta --outfmt \"6 qseqid sseqid evalue bitscore\""
    )]
    Scan(scan::ScanArgs),
    /// Prepare a database for fast repeated searches (a memory-mapped file).
    #[command(
        after_help = "Example (from the source tree):\n  clsw makedb tests/data/uniprot300.fasta -o uniprot300.clswdb"
    )]
    Makedb(scan::MakedbArgs),
    /// All-pairs distance matrix of a FASTA alignment (SNP distances) or of genotypes
    /// (PLINK .bed, 0/1/2 table).
    #[command(
        visible_alias = "dist",
        after_help = "Example (from the source tree):\n  clsw distance tests/data/distance/hand.fa"
    )]
    Distance(distance::DistanceArgs),
    /// Three-sequence local alignment (3-D Smith-Waterman) of FASTA records, or of every
    /// triple of channels of a time series as SAX words.
    #[command(
        after_help = "Example (from the source tree):\n  clsw sw3 tests/data/gap_pairs.fasta tests/data/gap_pairs.fasta tests/data/gap_pairs.fasta"
    )]
    Sw3(sw3::Sw3Args),
    /// Pairwise statistical significance: shuffle each subject, align the query with every
    /// shuffle, fit a Gumbel, report lambda, K, P-value and E-value (like prss / ssearch36 -k).
    #[command(
        after_help = "Example (from the source tree):\n  clsw psse -q tests/data/queries10.fasta -s tests/data/gap_pairs.fasta --shuffles 200"
    )]
    Psse(psse::PsseArgs),
    /// Benchmarks that print tables (GCUPS per variant, device and size).
    #[command(
        subcommand,
        after_help = "Example (from the source tree):\n  clsw bench scan --queries tests/data/queries10.fasta -d tests/data/uniprot300.fasta --lengths 144,464 --variants native"
    )]
    #[cfg(feature = "bench")]
    Bench(bench::BenchCommand),
    /// Shell completions for clsw, on standard output.
    #[command(after_help = "Example:\n  clsw completions bash > ~/.local/share/bash-completion/completions/clsw")]
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// The manual page (roff) of clsw, or of one of its commands, on standard output.
    #[command(after_help = "Example:\n  clsw man scan > clsw-scan.1 && man ./clsw-scan.1")]
    Man {
        /// A command's page instead of clsw's own (scan, align, ...).
        command: Option<String>,
    },
}

/// A closed standard output (`clsw ... | head`) ends the process quietly, as it does
/// for other Unix tools: Rust ignores SIGPIPE, which turns each write into an EPIPE
/// error to report (or a panic in `println!`); restoring the default action makes the
/// first write after the reader left end the process (status 141 in a shell), with no
/// message and no further work.
fn end_quietly_on_closed_pipes() {
    #[cfg(unix)]
    // SAFETY: called first in `main`, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The MPI job this process is a rank of: with the `mpi` feature, when an MPI launcher
/// started it (`mpirun -n N clsw scan ...`); else none.
/// MPI ends with the job's value, when `main` returns.
#[cfg(feature = "mpi")]
fn mpi_job() -> clsw::Result<Option<Box<dyn Comm>>> {
    if !clsw::mpi::World::launched() {
        return Ok(None);
    }
    Ok(Some(Box::new(clsw::mpi::World::init()?)))
}

#[cfg(not(feature = "mpi"))]
fn mpi_job() -> clsw::Result<Option<Box<dyn Comm>>> {
    Ok(None)
}

/// A command as one rank of an MPI job: scan, psse and distance share their work among
/// the ranks; the others would only repeat it.
fn refuse_ranks(what: &str, ranks: Option<&dyn Comm>) -> clsw::Result<()> {
    match ranks {
        Some(comm) if comm.size() > 1 => Err(clsw::Error::InvalidArgument(format!(
            "clsw {what} does not share its work among MPI ranks (scan, psse and distance do); run it as one process"
        ))),
        _ => Ok(()),
    }
}

/// `cmd` and every subcommand taking `-1` as a value (refused as out of range, or as
/// the gap cost the ssearch36 way, by the option itself) rather than as an unknown
/// option, which clap reports as "unexpected argument '-1' found".
fn with_negative_numbers(cmd: clap::Command) -> clap::Command {
    let names: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_string()).collect();
    names
        .into_iter()
        .fold(cmd.allow_negative_numbers(true), |cmd, name| cmd.mut_subcommand(name, with_negative_numbers))
}

/// On SIGINT, SIGTERM or SIGHUP, removes the temporaries of the outputs being written
/// (their targets stay as they were) and ends with status 128 + the signal, as the
/// default action would (no exit handlers, no flush), without the `.NAME.XXXXXX.tmp`
/// files that leaves behind.
fn clean_up_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                clsw::outfile::remove_pending_temporaries();
                // `_exit`, as the signal's default action ends a process: `exit` would
                // run the OpenCL driver's exit handlers under threads still in it (PoCL
                // aborts or spins when a build is under way).
                // SAFETY: `_exit` takes a status and does not return; it touches no
                // memory of this process.
                unsafe { libc::_exit(128 + signal) };
            }
        });
    }
}

/// `clsw man [COMMAND]`: the roff page of clsw or of one of its commands, from the
/// same definitions `--help` prints.
fn manual_page(command: Option<&str>) -> clsw::Result<()> {
    let root = with_negative_numbers(Cli::command());
    let page = match command {
        None => root,
        Some(name) => {
            let sub = root.find_subcommand(name).cloned().ok_or_else(|| {
                let names: Vec<&str> = root.get_subcommands().map(|c| c.get_name()).collect();
                clsw::Error::InvalidArgument(format!("no command '{name}'; commands are {}", names.join(", ")))
            })?;
            sub.display_name(format!("clsw-{name}"))
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out).map_err(|e| clsw::Error::io("the manual page", e))?;
    std::io::Write::write_all(&mut std::io::stdout(), &out).map_err(|e| clsw::Error::io("standard output", e))
}

/// A command line clap refuses: its message with the prefix every error of clsw's has
/// (`clsw: error: ...`), exit status 2; `--help` and `--version` as clap prints them.
fn command_line_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    eprint!("clsw: {}", e.render());
    ExitCode::from(2)
}

fn main() -> ExitCode {
    end_quietly_on_closed_pipes();
    clean_up_on_signals();
    let cli = match with_negative_numbers(Cli::command())
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches))
    {
        Ok(cli) => cli,
        Err(e) => return command_line_error(e),
    };
    let job = match mpi_job() {
        Ok(job) => job,
        Err(e) => {
            eprintln!("clsw: error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let ranks = job.as_deref();
    let result = set_up(&cli).and_then(|()| match &cli.command {
        Command::Scan(args) => scan::run_scan(args, ranks),
        Command::Psse(args) => psse::run(args, ranks),
        Command::Distance(args) => distance::run(args, ranks),
        command => {
            let name = match command {
                Command::Completions { .. } => "completions",
                Command::Man { .. } => "man",
                Command::Devices => "devices",
                Command::Align(_) => "align",
                Command::Makedb(_) => "makedb",
                Command::Sw3(_) => "sw3",
                #[cfg(feature = "bench")]
                Command::Bench(_) => "bench",
                Command::Scan(_) | Command::Psse(_) | Command::Distance(_) => unreachable!("handled above"),
            };
            refuse_ranks(name, ranks)?;
            match command {
                Command::Devices => devices::run(),
                Command::Align(args) => align::run(args),
                Command::Makedb(args) => scan::run_makedb(args),
                Command::Sw3(args) => sw3::run(args),
                #[cfg(feature = "bench")]
                Command::Bench(command) => bench::run(command),
                Command::Completions { shell } => {
                    let mut cmd = with_negative_numbers(Cli::command());
                    clap_complete::generate(*shell, &mut cmd, "clsw", &mut std::io::stdout());
                    Ok(())
                }
                Command::Man { command } => manual_page(command.as_deref()),
                Command::Scan(_) | Command::Psse(_) | Command::Distance(_) => unreachable!("handled above"),
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // In an MPI job every rank fails together (clsw::mpi): rank 0 says why, once.
        Err(e) => {
            match ranks {
                Some(comm) if comm.rank() != 0 => {}
                Some(comm) if comm.size() > 1 && !matches!(e, clsw::Error::Rank { .. }) => {
                    eprintln!("clsw: error: rank 0: {e}")
                }
                _ => eprintln!("clsw: error: {e}"),
            }
            ExitCode::FAILURE
        }
    }
}
