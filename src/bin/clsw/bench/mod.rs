//! `clsw bench`: the benchmarks, one file per job, apart from the job commands. What
//! they all use is here: the median of timed runs, the clock, the generator of
//! synthetic data, device names in table width, and the table and CSV writers.

mod distance;
mod psse;
mod scan;
mod search;
mod sw3;

use crate::args::DeviceArgs;
use clap::Subcommand;
use clsw::Result;
use clsw::device::{Backend, ClDevice, DeviceInfo};
use clsw::distance::generate::Rng;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Database search: GCUPS per kernel variant, device and query length.
    #[command(
        after_help = "Example (from the source tree):\n  clsw bench scan --queries tests/data/queries10.fasta -d tests/data/uniprot300.fasta --lengths 144,464 --variants native"
    )]
    Scan(scan::BenchScanArgs),
    /// Database search, whole process: the wall clock of `clsw scan` runs beside their
    /// kernel time, optionally beside CUDASW++4.0's whole process.
    #[command(
        after_help = "Example (from the source tree):\n  clsw bench search -q tests/data/queries10.fasta -d tests/data/uniprot300.fasta --runs default"
    )]
    Search(search::BenchSearchArgs),
    /// Distance matrices: generated SNP alignments, time and comparisons per second.
    #[command(
        visible_alias = "dist",
        after_help = "Example:\n  clsw bench distance --samples 50 --sites 100000 --variants cpu"
    )]
    Distance(distance::BenchDistanceArgs),
    /// Three-sequence alignment: cells per second per variant, device and length, and for
    /// a batch of all triples of channels, beside the CPU reference.
    #[command(after_help = "Example:\n  clsw bench sw3 --lengths 64 --channels 8 --channel-length 64")]
    Sw3(sw3::BenchSw3Args),
    /// Pairwise statistical significance: pairs and shuffle alignments per second per
    /// device and kernel variant, optionally beside ssearch36 -k.
    #[command(after_help = "Example:\n  clsw bench psse --num-subjects 10 --shuffles 100 --variants native")]
    Psse(psse::BenchPsseArgs),
}

pub fn run(command: &BenchCommand) -> Result<()> {
    match command {
        BenchCommand::Scan(args) => scan::run(args),
        BenchCommand::Search(args) => search::run(args),
        BenchCommand::Distance(args) => distance::run(args),
        BenchCommand::Sw3(args) => sw3::run(args),
        BenchCommand::Psse(args) => psse::run(args),
    }
}

/// The median of timed runs (the upper one of an even count).
pub fn median(mut runs: Vec<f64>) -> f64 {
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}

/// Runs `f` and returns its value with the seconds it took by the host clock.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let value = f();
    (value, start.elapsed().as_secs_f64())
}

/// What [`median_of_runs`] measured.
pub struct Timings<T> {
    /// The last run's value.
    pub last: T,
    /// The median of the runs' device seconds (as the caller reads them from a value).
    pub kernel_s: f64,
    /// The median of the runs' host seconds.
    pub e2e_s: f64,
}

/// Runs `f` `runs` times (at least once; the caller has warmed up) and takes the median
/// of the host clock around each run and of each run's `kernel` seconds.
pub fn median_of_runs<T>(
    runs: usize,
    mut f: impl FnMut() -> Result<T>,
    kernel: impl Fn(&T) -> f64,
) -> Result<Timings<T>> {
    let (mut kernel_s, mut e2e_s, mut last) = (Vec::new(), Vec::new(), None);
    for _ in 0..runs.max(1) {
        let (value, seconds) = timed(&mut f);
        let value = value?;
        e2e_s.push(seconds);
        kernel_s.push(kernel(&value));
        last = Some(value);
    }
    Ok(Timings { last: last.expect("at least one run"), kernel_s: median(kernel_s), e2e_s: median(e2e_s) })
}

/// The generator of every benchmark's synthetic data (the library's xorshift64*),
/// seeded as the benchmarks always were, so a seed gives the data it gave before.
pub fn rng(seed: u64) -> Rng {
    Rng::from_state(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// ssearch36's name for a built-in matrix (BLOSUM50 -> BL50), else the name as given.
pub fn ssearch_matrix(name: &str) -> String {
    match name.to_ascii_uppercase().strip_prefix("BLOSUM") {
        Some(d) if d == "50" || d == "62" || d == "80" => format!("BL{d}"),
        _ => name.to_string(),
    }
}

/// A device's name cut to a table column of `width` characters.
pub fn short_name(info: &DeviceInfo, width: usize) -> String {
    info.name.trim().chars().take(width).collect()
}

/// The OpenCL devices of `--device` (else `CLSW_DEVICE`, else auto), opened, building
/// the portable kernels with `--portable` (else as `CLSW_PORTABLE` says); and whether
/// the specification also named the native CPU path.
pub fn opencl_devices(device: &DeviceArgs) -> Result<(Vec<ClDevice>, bool)> {
    let spec = device.spec()?;
    let mut devices = Vec::new();
    let mut native = false;
    for backend in spec.select()? {
        match backend {
            Backend::OpenCl(info) => devices.push(ClDevice::new(info)?.with_portable(spec.portable())),
            Backend::Native => native = true,
        }
    }
    Ok((devices, native))
}

/// One line of a table: every cell padded to its column, one space between columns.
/// `layout` gives the columns as format specifiers do: `<6` six characters, text on
/// the left; `>14` fourteen, text on the right.
pub fn print_row<S: AsRef<str>>(layout: &str, cells: &[S]) {
    let columns: Vec<&str> = layout.split_whitespace().collect();
    assert_eq!(columns.len(), cells.len(), "a table row has a cell per column");
    let padded: Vec<String> = columns
        .iter()
        .zip(cells)
        .map(|(column, cell)| {
            let (side, width) = column.split_at(1);
            let w: usize = width.parse().expect("a column width");
            match side {
                "<" => format!("{:<w$}", cell.as_ref()),
                ">" => format!("{:>w$}", cell.as_ref()),
                _ => panic!("a column is <WIDTH or >WIDTH, not {column}"),
            }
        })
        .collect();
    println!("{}", padded.join(" "));
}

/// Writes a CSV file, atomically: the header line, then one line per row.
pub fn write_csv(path: &Path, header: &str, rows: &[String]) -> Result<()> {
    let mut text = String::with_capacity(header.len() + 1 + rows.iter().map(|r| r.len() + 1).sum::<usize>());
    text.push_str(header);
    text.push('\n');
    for row in rows {
        text.push_str(row);
        text.push('\n');
    }
    let mut file = clsw::outfile::OutFile::create(path)?;
    file.write_all(text.as_bytes()).map_err(|e| clsw::Error::io(path, e))?;
    file.commit()
}
