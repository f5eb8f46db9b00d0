//! The `clsw` command: every entry point of the library from a terminal.

mod bench;
mod distance;
mod psse;
mod scan;
mod sw3;

use clap::{Parser, Subcommand, ValueEnum};
use clsw::align::display::{TABULAR_COLUMNS, pairwise_view, tabular_line};
use clsw::device::{ClDevice, DeviceKind, DeviceSpec, list_devices};
use clsw::engine::self_test;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::{Alphabet, EmptyRecords, Sequence, fasta};
use clsw::{Error, Result, reference};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "clsw", version, about = "GPU sequence comparison (OpenCL): Smith-Waterman and friends")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List OpenCL platforms and devices, and run each device's self-test.
    Devices,
    /// Align every sequence of A with every sequence of B (local, with traceback).
    Align(AlignArgs),
    /// Search a database with queries: every subject's exact Smith-Waterman score, the
    /// best hits with E-values and alignments.
    Scan(scan::ScanArgs),
    /// Prepare a database for fast repeated searches (a memory-mapped file).
    Makedb(scan::MakedbArgs),
    /// All-pairs distance matrix of a FASTA alignment (SNP distances) or of genotypes
    /// (PLINK .bed, 0/1/2 table).
    #[command(visible_alias = "dist")]
    Distance(distance::DistanceArgs),
    /// Three-sequence local alignment (3-D Smith-Waterman) of FASTA records, or of every
    /// triple of channels of a time series as SAX words.
    Sw3(sw3::Sw3Args),
    /// Pairwise statistical significance: shuffle each subject, align the query with every
    /// shuffle, fit a Gumbel, report lambda, K, P-value and E-value (like prss / ssearch36 -k).
    Psse(psse::PsseArgs),
    /// Benchmarks that print tables (GCUPS per variant, device and size).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

/// `--device`, the same text in every job command.
#[derive(clap::Args)]
struct DeviceArgs {
    /// Devices: auto, gpu, cpu, native (the SIMD CPU path, no OpenCL), all, an index or a
    /// name from `clsw devices`, or a comma-separated list of these, each a share of the
    /// work (`0,1`: devices 0 and 1) [default: CLSW_DEVICE, else auto].
    #[arg(long)]
    device: Option<String>,
}

/// Options shared by everything that scores alignments.
#[derive(clap::Args)]
struct ScoringArgs {
    /// Built-in matrix (BLOSUM45/50/62/80/90, PAM30/70/250, EDNAFULL) or an NCBI-format
    /// matrix file [default: BLOSUM62 for protein, EDNAFULL for DNA].
    #[arg(long)]
    matrix: Option<String>,
    /// Match score: use match/mismatch scoring instead of a matrix.
    #[arg(long = "match", requires = "mismatch")]
    match_score: Option<i32>,
    /// Mismatch score (zero or negative), with --match.
    #[arg(long, allow_hyphen_values = true)]
    mismatch: Option<i32>,
    /// Gap open cost: a gap of length L costs open + L * extend [default: the matrix's usual].
    #[arg(long)]
    gap_open: Option<i32>,
    /// Gap extension cost, charged for every gapped residue [default: the matrix's usual].
    #[arg(long)]
    gap_extend: Option<i32>,
    /// Sequence alphabet.
    #[arg(long, value_enum, default_value_t = AlphabetArg::Auto)]
    alphabet: AlphabetArg,
}

#[derive(Clone, Copy, ValueEnum)]
enum AlphabetArg {
    Auto,
    Protein,
    Dna,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum AlignFormat {
    /// Readable pairwise view, with the tabular line under it.
    Pairwise,
    /// Tab-separated lines only (BLAST -outfmt 6 order, then raw score and CIGAR).
    Tabular,
}

#[derive(clap::Args)]
struct AlignArgs {
    /// FASTA file of first sequences (plain or gzip).
    a: PathBuf,
    /// FASTA file of second sequences (plain or gzip).
    b: PathBuf,
    #[command(flatten)]
    scoring: ScoringArgs,
    #[arg(long, value_enum, default_value_t = AlignFormat::Pairwise)]
    outfmt: AlignFormat,
    /// Columns per line in the pairwise view.
    #[arg(long, default_value_t = 60)]
    width: usize,
}

impl ScoringArgs {
    fn alphabet_for(&self, path: &Path) -> Result<Alphabet> {
        Ok(match self.alphabet {
            AlphabetArg::Protein => Alphabet::Protein,
            AlphabetArg::Dna => Alphabet::Dna,
            AlphabetArg::Auto => match &self.matrix {
                Some(m) => Matrix::builtin_or_file(m)?.alphabet(),
                None => fasta::guess_alphabet(path)?,
            },
        })
    }

    /// The scoring the options give, with BLOSUM62 (protein) or EDNAFULL (DNA) and the
    /// matrix's usual gaps where they name no matrix.
    fn scoring(&self, alphabet: Alphabet) -> Result<Scoring> {
        self.scoring_or(alphabet, None)
    }

    /// As [`scoring`](Self::scoring), with a job's own default (psse's, from the library)
    /// in place of BLOSUM62 or EDNAFULL where it is for this alphabet.
    fn scoring_or(&self, alphabet: Alphabet, job_default: Option<Scoring>) -> Result<Scoring> {
        let (matrix, usual) = match (self.match_score, self.mismatch, &self.matrix) {
            (Some(_), _, Some(_)) => {
                return Err(Error::InvalidArgument("give either --matrix or --match/--mismatch, not both".into()));
            }
            (Some(m), Some(x), None) => Matrix::match_mismatch(alphabet, m, x).map(|m| (m, None))?,
            (_, _, Some(name)) => (Matrix::builtin_or_file(name)?, None),
            _ => match job_default {
                Some(d) if d.matrix.alphabet() == alphabet => (d.matrix, Some(d.gaps)),
                _ => (Matrix::builtin(if alphabet == Alphabet::Dna { "EDNAFULL" } else { "BLOSUM62" })?, None),
            },
        };
        if matrix.alphabet() != alphabet {
            return Err(Error::InvalidArgument(format!(
                "matrix {} is for {} sequences, but the input is {}",
                matrix.name(),
                matrix.alphabet().name(),
                alphabet.name()
            )));
        }
        let usual = usual.unwrap_or_else(|| Gaps::default_for(matrix.name()));
        let gaps = Gaps::affine(self.gap_open.unwrap_or(usual.open), self.gap_extend.unwrap_or(usual.extend))?;
        Ok(Scoring::new(matrix, gaps))
    }
}

fn read_sequences(path: &Path, alphabet: Alphabet) -> Result<Vec<Sequence>> {
    let (seqs, report) = fasta::read_file(path, alphabet, EmptyRecords::Error)?;
    if let Some(notes) = report.notes(alphabet) {
        eprintln!("clsw: {}: {notes}", path.display());
    }
    Ok(seqs)
}

fn run_align(args: &AlignArgs) -> Result<()> {
    let alphabet = args.scoring.alphabet_for(&args.a)?;
    let scoring = args.scoring.scoring(alphabet)?;
    let a = read_sequences(&args.a, alphabet)?;
    let b = read_sequences(&args.b, alphabet)?;
    let pairs: Vec<(&Sequence, &Sequence)> = a.iter().flat_map(|x| b.iter().map(move |y| (x, y))).collect();
    let alignments: Vec<_> =
        pairs.par_iter().map(|(x, y)| reference::align(&x.residues, &y.residues, &scoring)).collect();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let io = |e| Error::io("standard output", e);
    if args.outfmt == AlignFormat::Tabular {
        writeln!(out, "# {TABULAR_COLUMNS}").map_err(io)?;
    }
    for ((x, y), aln) in pairs.iter().zip(&alignments) {
        match (aln, args.outfmt) {
            (None, AlignFormat::Pairwise) => {
                writeln!(out, "{} vs {}: no positive-scoring alignment\n", x.id, y.id).map_err(io)?
            }
            (None, AlignFormat::Tabular) => {}
            (Some(aln), AlignFormat::Pairwise) => {
                let view = pairwise_view(&x.id, &y.id, &x.residues, &y.residues, aln, &scoring, args.width);
                writeln!(out, "{view}\n# {TABULAR_COLUMNS}\n{}\n", tabular_line(&x.id, &y.id, aln)).map_err(io)?;
            }
            (Some(aln), AlignFormat::Tabular) => writeln!(out, "{}", tabular_line(&x.id, &y.id, aln)).map_err(io)?,
        }
    }
    out.flush().map_err(io)
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

fn run_devices() -> Result<()> {
    let devices = list_devices()?;
    if devices.is_empty() {
        println!("No OpenCL devices found: clsw computes on the CPU with its native SIMD path.");
        println!("For GPUs install the vendor's OpenCL driver; for CPUs, PoCL (pocl-opencl-icd).");
        return Ok(());
    }
    let mut failed = 0;
    for d in &devices {
        let kind = match d.kind {
            DeviceKind::Gpu => "GPU",
            DeviceKind::Cpu => "CPU",
            DeviceKind::Other => "other",
        };
        println!("[{}] {}", d.index, d.name.trim());
        println!("    platform:      {} (driver {})", d.platform.trim(), d.driver_version.trim());
        println!("    type:          {kind}, {} compute units at {} MHz", d.compute_units, d.clock_mhz);
        println!(
            "    memory:        {} global, {} per allocation, {} KiB local",
            gib(d.global_mem_bytes),
            gib(d.max_alloc_bytes),
            d.local_mem_bytes / 1024
        );
        println!("    OpenCL C:      {}", d.opencl_c_version.trim());
        let result = ClDevice::new(d.clone()).and_then(|dev| self_test(&dev));
        match result {
            Ok(t) if t.passed() => println!("    self-test:     passed ({} pairs equal to the reference)", t.pairs),
            Ok(t) => {
                failed += 1;
                println!("    self-test:     FAILED: {}", t.failure.unwrap_or_default());
            }
            Err(e) => {
                failed += 1;
                println!("    self-test:     FAILED: {e}");
            }
        }
    }
    let choice = DeviceSpec::resolve(None)?;
    match choice.select() {
        Ok(b) => {
            println!("\ndevice choice '{choice}' uses: {}", b.iter().map(|b| b.label()).collect::<Vec<_>>().join(", "))
        }
        Err(e) => println!("\ndevice choice '{choice}': {e}"),
    }
    if failed > 0 {
        return Err(Error::Device(format!("{failed} device(s) failed the self-test")));
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Devices => run_devices(),
        Command::Align(args) => run_align(args),
        Command::Scan(args) => scan::run_scan(args),
        Command::Makedb(args) => scan::run_makedb(args),
        Command::Distance(args) => distance::run(args),
        Command::Sw3(args) => sw3::run(args),
        Command::Psse(args) => psse::run(args),
        Command::Bench(command) => bench::run(command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("clsw: error: {e}");
            ExitCode::FAILURE
        }
    }
}
