//! `clsw bench scan`: GCUPS per kernel variant, device and query length, as a table on
//! standard output and optionally CSV. Kernel time comes from OpenCL profiling
//! events, end-to-end time from the host clock around each scan call (profile
//! upload, kernels, recompute of saturated subjects, read-back).

use super::{median_of_runs, opencl_devices, print_row, short_name, ssearch_matrix, timed, write_csv};
use crate::args::DeviceArgs;
use clap::Args;
use clsw::engine::self_test;
use clsw::outfile::OutFile;
use clsw::scan::scanner::{Scanner, Tuning};
use clsw::scan::windows::Windows;
use clsw::scan::{Variant, scan_once};
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::{Alphabet, EmptyRecords, fasta};
use clsw::{Error, Result};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The 20 query lengths of the classic SWIPE / CUDASW++ benchmark (P02232 ... Q9UKN1).
const CLASSIC_LENGTHS: [usize; 20] =
    [144, 189, 222, 375, 464, 567, 657, 729, 850, 1000, 1500, 2005, 2504, 3005, 3564, 4061, 4548, 4743, 5147, 5478];

/// The printed table's columns: var, device, qlen, cells, kernel_s, e2e_s, GCUPS,
/// e2e_GCUPS, recomp.
const LAYOUT: &str = "<12 <28 >6 >14 >10 >10 >10 >10 >6";

const CSV_HEADER: &str =
    "variant,device,query_len,cells,kernel_s,end_to_end_s,kernel_gcups,end_to_end_gcups,recomputed";

#[derive(Args)]
pub struct BenchScanArgs {
    /// Database FASTA (plain or gzip).
    #[arg(long, short = 'd', required_unless_present = "pseudodb")]
    db: Option<PathBuf>,
    /// Instead of --db, CUDASW++4.0's peak benchmark: COUNT copies of one random
    /// sequence of LENGTH residues (`--pseudodb 1000000 1024`, as its `--pseudodb`).
    #[arg(long, num_args = 2, value_names = ["COUNT", "LENGTH"])]
    pseudodb: Vec<usize>,
    /// Use the database this many times over (20 x uniprot20k = 181 M residues), every
    /// copy after the first with each sequence shuffled (its length and composition
    /// kept), so that the copies are distinct proteins as a real database's are.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Add the long tail of a real protein database: subjects of the lengths that
    /// Swiss-Prot's molecular-function GO set (benches/real_databases.sh) holds above
    /// 8,081 residues, 8,515 to 35,213, each cut from the database's residues shuffled.
    #[arg(long)]
    long_tail: bool,
    /// Write the database the benchmark scans (copies and long tail included) to this
    /// FASTA file, so that peers such as CUDASW++4.0 search exactly the same one.
    #[arg(long)]
    write_db: Option<PathBuf>,
    /// FASTA of real queries; for each length the nearest longer one is cut to it (or
    /// several are joined when none is long enough).
    #[arg(long)]
    queries: PathBuf,
    /// Query lengths [default: the 20 classic lengths, 144 to 5,478].
    #[arg(long, value_delimiter = ',')]
    lengths: Vec<usize>,
    /// Instead of cut lengths, scan with every query of --queries as it is, once each,
    /// and print one row per variant and device with the totals (qlen is then the
    /// total query residues).
    #[arg(long, conflicts_with = "lengths")]
    all_queries: bool,
    /// Kernel variants to run; `native` is the CPU path, `striped` its kernel of one
    /// pair on all SIMD lanes alone (the recomp column then counts subjects it left to
    /// 32 bits).
    #[arg(long, value_delimiter = ',', default_value = "team,inter")]
    variants: Vec<String>,
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    mode: crate::args::ModeArgs,
    #[arg(long, default_value = clsw::scoring::DEFAULT_MATRICES.protein)]
    matrix: String,
    #[arg(long, default_value_t = 11)]
    gap_open: i32,
    #[arg(long, default_value_t = 1)]
    gap_extend: i32,
    /// Timed runs per row (the median is reported), after one warm-up run.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// `inter`: query rows per band.
    #[arg(long)]
    band: Option<usize>,
    /// Work-items per work-group (`inter` and `team`; `team` takes at most 32 on CPU
    /// devices: `scan::team::max_work_group`).
    #[arg(long)]
    group: Option<usize>,
    /// `team`: work-items per pair of subjects (1 to 32, a power of two); a list
    /// sweeps the shapes (every team size with every --rows). Without it, teams of 8
    /// raised to 16 or 32 where the database is short beside its longest subject.
    #[arg(long, value_delimiter = ',')]
    team: Vec<usize>,
    /// `team`: query rows per work-item (even; 0 chooses per query); a list sweeps them.
    #[arg(long, value_delimiter = ',')]
    rows: Vec<usize>,
    /// `team`: the smallest team (short subjects get teams of about n / 12, at least this).
    #[arg(long)]
    min_team: Option<usize>,
    /// `team`: how much work a launch must hold beside a subject for that subject not
    /// to be long (0: none is long); long subjects' pairs are walked by several teams.
    #[arg(long)]
    long_cover: Option<u64>,
    /// `team`: long subjects cut into windows of STRIDE columns of their own, each
    /// reaching OVERLAP columns back, for the queries short enough (STRIDE 0: not cut).
    #[arg(long, num_args = 2, value_names = ["STRIDE", "OVERLAP"])]
    windows: Vec<usize>,
    /// Every pair on the device (by default the host takes a query's few saturated
    /// pairs, and in the global and glocal modes the long subjects of short queries).
    #[arg(long)]
    device_only: bool,

    /// Scores without end cells (`team` then runs its score-only kernel; a search
    /// finds the ends of its hits afterwards).
    #[arg(long)]
    scores_only: bool,
    /// Leave out subjects longer than this (to study length partitions).
    #[arg(long)]
    max_subject_len: Option<usize>,
    /// Leave out subjects shorter than this (to study length partitions).
    #[arg(long, default_value_t = 0)]
    min_subject_len: usize,
    /// Write the benchmark queries (cut to their lengths) to this FASTA file, so peers
    /// such as ssearch36 can be run on exactly the same queries.
    #[arg(long)]
    write_queries: Option<PathBuf>,
    /// Also time whole processes on the CPU, each query length as a FASTA file against
    /// the database written as FASTA: this ssearch36 (`-T` as many threads as clsw
    /// uses, `-b 50 -d 0`) and `clsw scan --device native` (rows `ssearch36` and
    /// `clsw-native`, kernel columns empty).
    #[arg(long)]
    ssearch: Option<PathBuf>,
    /// Also write the table as CSV here.
    #[arg(long)]
    csv: Option<PathBuf>,
}

/// Writes `(header, residues)` records as FASTA.
fn write_fasta<'a>(
    path: &Path,
    records: impl IntoIterator<Item = (String, &'a [u8])>,
    alphabet: Alphabet,
) -> Result<()> {
    let records: Vec<(String, &[u8])> = records.into_iter().collect();
    // Pieces of records as text, made in parallel and written in order: a database of
    // 20 G residues is never one string.
    let mut f = OutFile::create(path)?;
    for piece in records.chunks(1 << 20) {
        let text: Vec<Vec<u8>> = piece
            .par_iter()
            .map(|(header, s)| {
                let mut text = Vec::with_capacity(header.len() + s.len() + 3);
                text.extend_from_slice(format!(">{header}\n").as_bytes());
                text.extend_from_slice(&alphabet.decode_all(s));
                text.push(b'\n');
                text
            })
            .collect();
        for t in &text {
            f.write_all(t).map_err(|e| Error::io(path, e))?;
        }
    }
    f.commit()
}

/// The lengths above 8,081 residues (the longest of `uniprot20k`) in Swiss-Prot's
/// molecular-function GO set of 170 M residues (`benches/real_databases.sh`, MFO).
const LONG_TAIL: [usize; 14] =
    [8515, 8545, 8797, 8799, 8891, 9159, 10061, 10287, 11103, 13100, 18141, 22152, 34350, 35213];

/// `db` `copies` times, each copy after the first with every sequence shuffled (Fisher-
/// Yates, a seed per copy), then with `long_tail` the lengths of [`LONG_TAIL`], each cut
/// from the database's residues shuffled.
fn realistic_database(db: &[clsw::seq::Sequence], copies: usize, long_tail: bool) -> Vec<Vec<u8>> {
    let shuffle = |s: &mut [u8], rng: &mut clsw::distance::generate::Rng| {
        for i in (1..s.len()).rev() {
            s.swap(i, rng.below(i + 1));
        }
    };
    // Copies in parallel, each with a generator of its own, in order.
    let mut out: Vec<Vec<u8>> = (0..copies)
        .into_par_iter()
        .flat_map_iter(|copy| {
            let mut rng = super::rng(copy as u64 + 1);
            let copied: Vec<Vec<u8>> = db
                .iter()
                .map(|s| {
                    let mut r = s.residues.clone();
                    if copy > 0 {
                        shuffle(&mut r, &mut rng);
                    }
                    r
                })
                .collect();
            copied
        })
        .collect();
    if long_tail {
        let all: Vec<u8> = db.iter().flat_map(|s| s.residues.iter().copied()).collect();
        let mut rng = super::rng(0x7a11);
        for &len in &LONG_TAIL {
            let start = rng.below(all.len().saturating_sub(len).max(1));
            let mut r: Vec<u8> = all.iter().cycle().skip(start).take(len).copied().collect();
            shuffle(&mut r, &mut rng);
            out.push(r);
        }
    }
    out
}

/// A query of exactly `len` residues cut from real ones.
fn query_of_length(queries: &[Vec<u8>], len: usize) -> Vec<u8> {
    if let Some(q) = queries.iter().filter(|q| q.len() >= len).min_by_key(|q| q.len()) {
        return q[..len].to_vec();
    }
    let mut joined = Vec::new();
    for q in queries.iter().cycle() {
        joined.extend_from_slice(q);
        if joined.len() >= len {
            break;
        }
    }
    joined.truncate(len);
    joined
}

pub fn run(args: &BenchScanArgs) -> Result<()> {
    let scoring = Scoring::new(Matrix::builtin_or_file(&args.matrix)?, Gaps::affine(args.gap_open, args.gap_extend)?)
        .in_mode(args.mode.mode()?);
    let alphabet = scoring.matrix.alphabet();
    let db = match (&args.db, &args.pseudodb[..]) {
        (_, &[count, length]) => {
            let mut rng = super::rng(0x5eed);
            let one = clsw::seq::Sequence {
                id: "pseudo".into(),
                description: String::new(),
                residues: (0..length).map(|_| rng.below(20) as u8).collect(),
            };
            vec![one; count]
        }
        (Some(path), _) => fasta::read_file(path, alphabet, EmptyRecords::Skip)?.0,
        (None, _) => return Err(Error::InvalidArgument("give --db or --pseudodb".into())),
    };
    let (queries, _) = fasta::read_file(&args.queries, alphabet, EmptyRecords::Skip)?;
    let queries: Vec<Vec<u8>> = queries.into_iter().map(|s| s.residues).collect();
    let limit = args.max_subject_len.unwrap_or(usize::MAX);
    let owned = realistic_database(&db, args.repeat.max(1), args.long_tail);
    if let Some(path) = &args.write_db {
        write_fasta(path, owned.iter().enumerate().map(|(k, s)| (format!("s{k}"), s.as_slice())), alphabet)?;
    }
    let subjects: Vec<&[u8]> =
        owned.iter().filter(|s| (args.min_subject_len..=limit).contains(&s.len())).map(Vec::as_slice).collect();
    let residues: u64 = subjects.iter().map(|s| s.len() as u64).sum();
    let lengths = if args.lengths.is_empty() { CLASSIC_LENGTHS.to_vec() } else { args.lengths.clone() };
    if let Some(path) = &args.write_queries {
        let cut: Vec<(usize, Vec<u8>)> = lengths.iter().map(|&len| (len, query_of_length(&queries, len))).collect();
        let header = |len: usize| format!("bench_{len} cut from {}", args.queries.display());
        write_fasta(path, cut.iter().map(|(len, q)| (header(*len), q.as_slice())), alphabet)?;
    }
    // "native" is the CPU path (no OpenCL), "striped" its one-pair-on-all-lanes kernel
    // alone (every subject through it); every other name is a kernel variant.
    let cpu_rows = ["native", "striped"];
    let asked = |name: &str| args.variants.iter().any(|v| v.eq_ignore_ascii_case(name));
    let (native, striped) = (asked("native"), asked("striped"));
    let variants: Vec<Variant> = args
        .variants
        .iter()
        .filter(|v| !cpu_rows.iter().any(|c| v.eq_ignore_ascii_case(c)))
        .map(|v| v.parse())
        .collect::<Result<_>>()?;
    let defaults = Tuning::default();
    let tuning = Tuning {
        band: args.band.unwrap_or(defaults.band),
        group: args.group.unwrap_or(defaults.group),
        team: defaults.team,
        team_group: args.group.unwrap_or(defaults.team_group),
        rows: defaults.rows,
        min_team: args.min_team.unwrap_or(defaults.min_team),
        long_cover: args.long_cover.unwrap_or(defaults.long_cover),
        windows: match args.windows[..] {
            [stride, overlap] => Windows { stride, overlap },
            _ => defaults.windows,
        },
        host_assist: !args.device_only,
    };
    if !tuning.band.is_multiple_of(2) || tuning.band == 0 || tuning.group == 0 {
        return Err(Error::InvalidArgument("--band must be even and positive, --group positive".into()));
    }
    println!(
        "# clsw bench scan: {} subjects, {} residues ({} x {}{}), {} {}/{} {}, {:?}, median of {} runs{}",
        subjects.len(),
        residues,
        args.repeat,
        match (&args.db, &args.pseudodb[..]) {
            (_, &[count, length]) => format!("{count} copies of one random sequence of {length}"),
            (Some(path), _) => path.display().to_string(),
            (None, _) => String::new(),
        },
        if args.long_tail { " + long tail" } else { "" },
        scoring.matrix.name(),
        scoring.gaps.open,
        scoring.gaps.extend,
        scoring.mode,
        tuning,
        args.runs,
        if args.device.spec()?.portable() { ", portable kernels" } else { "" }
    );
    let mut rows = Vec::new();
    print_row(LAYOUT, &["var", "device", "qlen", "cells", "kernel_s", "e2e_s", "GCUPS", "e2e_GCUPS", "recomp"]);
    let mut row = |variant: &str, device: &str, len: usize, kernel: f64, e2e: f64, recomputed: usize| {
        let cells = residues as f64 * len as f64;
        let kg = if kernel > 0.0 { cells / kernel / 1e9 } else { f64::NAN };
        let eg = cells / e2e / 1e9;
        print_row(
            LAYOUT,
            &[
                variant.to_string(),
                device.to_string(),
                len.to_string(),
                format!("{cells:.4e}"),
                format!("{kernel:.4}"),
                format!("{e2e:.4}"),
                format!("{kg:.1}"),
                format!("{eg:.1}"),
                recomputed.to_string(),
            ],
        );
        rows.push(format!("{variant},{device},{len},{cells},{kernel:.6},{e2e:.6},{kg:.2},{eg:.2},{recomputed}"));
    };
    if native {
        let device = format!("native CPU, {} threads", rayon::current_num_threads());
        for &len in &lengths {
            let query = query_of_length(&queries, len);
            // Score only, as a search scans (its hits get their ends afterwards).
            let scan = || clsw::scan::native::scores(&query, &subjects, &scoring, clsw::scan::native::Report::Scores);
            scan()?; // warm-up
            let time = median_of_runs(args.runs, scan, |_| 0.0)?;
            row("native", &device, len, time.e2e_s, time.e2e_s, time.last.recomputed);
        }
    }
    if striped {
        use rayon::prelude::*;
        let device = format!("striped CPU, {} threads", rayon::current_num_threads());
        for &len in &lengths {
            let query = query_of_length(&queries, len);
            let profile = clsw::scan::native::striped::Profile::new(&query, &scoring)?;
            let run = || {
                subjects
                    .par_iter()
                    .map(|s| clsw::scan::native::striped::score(&profile, s, &scoring))
                    .collect::<clsw::Result<Vec<_>>>()
            };
            run()?; // warm-up
            let time = median_of_runs(args.runs, run, |_| 0.0)?;
            let wide = time.last.iter().filter(|r| r.is_none()).count();
            row("striped", &device, len, time.e2e_s, time.e2e_s, wide);
        }
    }
    if let Some(ssearch) = &args.ssearch {
        let threads = rayon::current_num_threads();
        let device = format!("CPU, {threads} threads, process");
        let dir = std::env::temp_dir().join(format!("clsw-bench-scan-{}", std::process::id()));
        let result = (|| -> Result<()> {
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            let db = dir.join("db.fa");
            write_fasta(&db, subjects.iter().enumerate().map(|(k, s)| (format!("s{k}"), *s)), alphabet)?;
            let clsw = std::env::current_exe().map_err(|e| Error::io("clsw", e))?;
            for &len in &lengths {
                let query = dir.join(format!("q{len}.fa"));
                let cut = query_of_length(&queries, len);
                write_fasta(&query, [(format!("bench_{len}"), cut.as_slice())], alphabet)?;
                let peer = |program: &Path, argv: Vec<String>| -> Result<f64> {
                    let run = || {
                        let status = std::process::Command::new(program)
                            .args(&argv)
                            .stdout(std::process::Stdio::null())
                            .stderr(std::process::Stdio::null())
                            .status()
                            .map_err(|e| Error::io(program, e))?;
                        if status.success() {
                            Ok(())
                        } else {
                            Err(Error::InvalidArgument(format!("{} failed: {status}", program.display())))
                        }
                    };
                    run()?; // warm-up: the page cache
                    Ok(median_of_runs(args.runs, run, |_| 0.0)?.e2e_s)
                };
                let q = query.display().to_string();
                let d = db.display().to_string();
                let ssearch_args = vec![
                    "-T".into(),
                    threads.to_string(),
                    "-p".into(),
                    "-s".into(),
                    ssearch_matrix(scoring.matrix.name()),
                    "-f".into(),
                    format!("-{}", scoring.gaps.open),
                    "-g".into(),
                    format!("-{}", scoring.gaps.extend),
                    "-b".into(),
                    "50".into(),
                    "-d".into(),
                    "0".into(),
                    "-q".into(),
                    q.clone(),
                    d.clone(),
                ];
                let seconds = peer(ssearch, ssearch_args)?;
                row("ssearch36", &device, len, 0.0, seconds, 0);
                let clsw_args = vec![
                    "scan".into(),
                    "-q".into(),
                    q,
                    "-d".into(),
                    d,
                    "--device".into(),
                    "native".into(),
                    "--matrix".into(),
                    args.matrix.clone(),
                    "--gap-open".into(),
                    scoring.gaps.open.to_string(),
                    "--gap-extend".into(),
                    scoring.gaps.extend.to_string(),
                    "--threads".into(),
                    threads.to_string(),
                ];
                let seconds = peer(&clsw, clsw_args)?;
                row("clsw-native", &device, len, 0.0, seconds, 0);
            }
            Ok(())
        })();
        let _ = std::fs::remove_dir_all(&dir);
        result?;
    }
    let (devices, native_device) =
        if variants.is_empty() { (Vec::new(), false) } else { opencl_devices(&args.device)? };
    if native_device {
        return Err(Error::Device("clsw bench scan needs an OpenCL device".into()));
    }
    for dev in devices {
        let test = self_test(&dev, &variants)?;
        if let Some(f) = test.failure {
            return Err(Error::Device(format!("{} failed its self-test: {f}", dev.label())));
        }
        let name = short_name(&dev.info, 28);
        // Every variant once, `team` once per shape of the sweep.
        let teams = if args.team.is_empty() { vec![defaults.team] } else { args.team.clone() };
        let rows = if args.rows.is_empty() { vec![defaults.rows] } else { args.rows.clone() };
        let mut runs = Vec::new();
        for &variant in &variants {
            if variant == Variant::Team {
                for &team in &teams {
                    for &r in &rows {
                        let label = format!("team{team}x{r}{}", if args.scores_only { "s" } else { "" });
                        runs.push((variant, Tuning { team, rows: r, ..tuning }, label));
                    }
                }
            } else {
                runs.push((variant, tuning, variant.name().to_string()));
            }
        }
        for (variant, tuning, label) in runs {
            tuning.check_team()?;
            let kind = variant.scan_kernel();
            let t0 = Instant::now();
            let scanner = kind.map(|k| Scanner::new(&dev, k, tuning, &subjects, alphabet.size() as u8)).transpose()?;
            if scanner.is_some() {
                eprintln!("{variant} on {name}: database laid out and uploaded in {:.2} s", t0.elapsed().as_secs_f64());
            }
            if args.all_queries {
                let scan = |q: &[u8]| match &scanner {
                    Some(s) if args.scores_only => s.scores(q, &scoring),
                    Some(s) => s.scan(q, &scoring),
                    None => scan_once(&dev, variant, q, &subjects, &scoring),
                };
                scan(&queries[0])?; // warm-up: program build, first-touch
                let (mut kernel, mut e2e, mut recomputed, mut total) = (0.0, 0.0, 0, 0);
                for q in &queries {
                    let (out, seconds) = timed(|| scan(q));
                    let out = out?;
                    e2e += seconds;
                    kernel += out.kernel_seconds;
                    recomputed += out.recomputed;
                    total += q.len();
                }
                row(&label, &name, total, kernel, e2e, recomputed);
                continue;
            }
            for &len in &lengths {
                let query = query_of_length(&queries, len);
                let scan = || match &scanner {
                    Some(s) if args.scores_only => s.scores(&query, &scoring),
                    Some(s) => s.scan(&query, &scoring),
                    None => scan_once(&dev, variant, &query, &subjects, &scoring),
                };
                scan()?; // warm-up: program build, first-touch
                let time = median_of_runs(args.runs, scan, |out| out.kernel_seconds)?;
                row(&label, &name, len, time.kernel_s, time.e2e_s, time.last.recomputed);
            }
        }
    }
    if let Some(path) = &args.csv {
        write_csv(path, CSV_HEADER, &rows)?;
    }
    Ok(())
}
