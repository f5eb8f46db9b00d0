//! `clsw bench sw3`: cells per second per kernel variant, device and size, beside the
//! CPU reference, on synthetic SAX words.

use super::{median_of_runs, opencl_devices, print_row, rng, short_name, timed, write_csv};
use crate::args::DeviceArgs;
use crate::sw3::describe;
use clap::Args;
use clsw::reference::sw3::sw3_score;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::Alphabet;
use clsw::sw3::sax;
use clsw::sw3::{self, Sw3Score, Tuning, Variant};
use clsw::{Error, Result};
use rayon::prelude::*;
use std::path::PathBuf;

/// The printed table's columns: variant, device, n, triples, cells, kernel_s, e2e_s,
/// Gcells/s, e2e_Gc/s, check.
const LAYOUT: &str = "<17 <28 >9 >7 >11 >10 >10 >9 >9 <6";

const CSV_HEADER: &str = "variant,device,n,triples,cells,kernel_s,end_to_end_s,gcells_per_s,e2e_gcells_per_s,check";

#[derive(Args)]
pub struct BenchSw3Args {
    /// Lengths n of single triples (n^3 cells each); 0 to skip.
    #[arg(long, value_delimiter = ',', default_value = "256,512,1024,2048")]
    lengths: Vec<usize>,
    /// Kernel variants for single triples: tile, plane.
    #[arg(long, value_delimiter = ',', default_value = "tile")]
    variants: Vec<String>,
    /// Channels of the batch case (every triple of them); 0 to skip.
    #[arg(long, default_value_t = 64)]
    channels: usize,
    /// Points per channel of the batch case (SAX word = channel length).
    #[arg(long, default_value_t = 512)]
    channel_length: usize,
    /// SAX alphabet of the generated data.
    #[arg(long, default_value_t = 8)]
    sax_alphabet: usize,
    #[command(flatten)]
    device: DeviceArgs,
    #[arg(long = "match", default_value_t = 1)]
    match_score: i32,
    #[arg(long, default_value_t = -1, allow_hyphen_values = true)]
    mismatch: i32,
    /// Gap open (0: linear gaps, the seed's setting).
    #[arg(long, default_value_t = 0)]
    gap_open: i32,
    #[arg(long, default_value_t = 1)]
    gap_extend: i32,
    /// Tile shape: cells per strip (even) [8 linear, 4 affine]; a list runs every
    /// combination with the other shape lists.
    #[arg(long, value_delimiter = ',')]
    ti: Vec<usize>,
    /// Tile shape: strips per work-group [4 linear, 2 affine].
    #[arg(long, value_delimiter = ',')]
    ns: Vec<usize>,
    /// Tile shape: columns per work-group [32].
    #[arg(long, value_delimiter = ',')]
    tj: Vec<usize>,
    /// Tile shape: steps per tile [16 linear, 8 affine].
    #[arg(long, value_delimiter = ',')]
    tt: Vec<usize>,
    /// Batch kernel: work-groups [8 per compute unit].
    #[arg(long)]
    groups: Option<usize>,
    /// Timed runs per device row (the median is reported), after one warm-up run.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// CPU reference threads [all cores]; 0 skips the CPU rows.
    #[arg(long)]
    cpu_threads: Option<usize>,
    /// CPU rows for single triples run one copy per thread, for lengths up to this.
    #[arg(long, default_value_t = 2048)]
    cpu_max_length: usize,
    /// CPU batch row: triples sampled from the batch [2 per thread].
    #[arg(long)]
    cpu_batch_triples: Option<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also write the table as CSV here.
    #[arg(long)]
    csv: Option<PathBuf>,
}

/// Synthetic multichannel recording (fNIRS-like): shared slow oscillations with
/// per-channel phase and weight, a per-channel random walk and noise.
fn synthetic_series(channels: usize, length: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = rng(seed);
    (0..channels)
        .map(|_| {
            let (phase, w1, w2) = (rng.unit() * std::f64::consts::TAU, 0.5 + rng.unit(), rng.unit());
            let mut walk = 0.0;
            (0..length)
                .map(|t| {
                    walk += rng.unit() - 0.5;
                    let t = t as f64;
                    w1 * (t / 37.0 + phase).sin() + w2 * (t / 11.0).sin() + 0.3 * walk + 0.4 * (rng.unit() - 0.5)
                })
                .collect()
        })
        .collect()
}

fn sax_words(channels: usize, length: usize, alphabet: usize, seed: u64) -> Result<Vec<Vec<u8>>> {
    synthetic_series(channels, length, seed).iter().map(|ch| Ok(sax::sax(ch, length, alphabet)?.codes)).collect()
}

fn shape(t: &Tuning) -> String {
    format!("{}x{}x{}x{}", t.ti, t.ns, t.tj, t.tt)
}

struct Row {
    variant: String,
    device: String,
    size: String,
    triples: usize,
    cells: f64,
    kernel_s: f64,
    e2e_s: f64,
    check: String,
}

impl Row {
    /// A CPU reference row: `triples` triples of `cells_each` cells on `threads` threads.
    fn reference(threads: usize, size: String, triples: usize, cells_each: f64, seconds: f64) -> Row {
        Row {
            variant: "reference".into(),
            device: format!("cpu x{threads} threads"),
            size,
            triples,
            cells: cells_each * triples as f64,
            kernel_s: seconds,
            e2e_s: seconds,
            check: "-".into(),
        }
    }

    fn gcells(&self, s: f64) -> f64 {
        if s > 0.0 { self.cells / s / 1e9 } else { f64::NAN }
    }
}

pub fn run(args: &BenchSw3Args) -> Result<()> {
    let matrix = Matrix::match_mismatch(Alphabet::Protein, args.match_score, args.mismatch)?;
    let scoring = Scoring::new(matrix, Gaps::affine(args.gap_open, args.gap_extend)?);
    let base = Tuning::default_for(&scoring);
    let or = |v: &Vec<usize>, d: usize| if v.is_empty() { vec![d] } else { v.clone() };
    let mut tunings = Vec::new();
    for &ti in &or(&args.ti, base.ti) {
        for &ns in &or(&args.ns, base.ns) {
            for &tj in &or(&args.tj, base.tj) {
                for &tt in &or(&args.tt, base.tt) {
                    tunings.push(Tuning { ti, ns, tj, tt, groups: args.groups.unwrap_or(0) });
                }
            }
        }
    }
    let variants: Vec<Variant> = args.variants.iter().map(|v| v.parse()).collect::<Result<_>>()?;
    let threads = args.cpu_threads.unwrap_or_else(rayon::current_num_threads);
    println!(
        "# clsw bench sw3: {}; SAX-like data (alphabet {}, synthetic series, seed {}); tile shapes TIxNSxTJxTT {}; \
         device rows: median of \
         {} runs after a warm-up; kernel_s = device time first kernel start to last kernel end (profiling events), \
         e2e_s = host clock around the call; cells = n^3 per triple; CPU reference rows: {} threads, single triples \
         one copy per thread (throughput of all threads; one triple alone is not parallelised), batch parallel over \
         sampled triples",
        describe(&scoring),
        args.sax_alphabet,
        args.seed,
        tunings.iter().map(shape).collect::<Vec<_>>().join(", "),
        args.runs,
        threads
    );
    let devices = opencl_devices(&args.device)?.0;
    if devices.is_empty() {
        eprintln!("clsw: no OpenCL device: only the CPU reference rows");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| Error::InvalidArgument(format!("thread pool: {e}")))?;
    let mut rows: Vec<Row> = Vec::new();
    let print = |r: &Row| {
        print_row(
            LAYOUT,
            &[
                r.variant.clone(),
                r.device.clone(),
                r.size.clone(),
                r.triples.to_string(),
                format!("{:.4e}", r.cells),
                format!("{:.4}", r.kernel_s),
                format!("{:.4}", r.e2e_s),
                format!("{:.2}", r.gcells(r.kernel_s)),
                format!("{:.2}", r.gcells(r.e2e_s)),
                r.check.clone(),
            ],
        )
    };
    print_row(
        LAYOUT,
        &["variant", "device", "n", "triples", "cells", "kernel_s", "e2e_s", "Gcells/s", "e2e_Gc/s", "check"],
    );

    for &n in args.lengths.iter().filter(|&&n| n > 0) {
        let words = sax_words(3, n, args.sax_alphabet, args.seed + n as u64)?;
        let (a, b, c) = (&words[0], &words[1], &words[2]);
        let cells = (n as f64).powi(3);
        // CPU reference: one copy per thread.
        let mut want: Option<Sw3Score> = None;
        if threads > 0 && n <= args.cpu_max_length {
            let (results, s): (Vec<Sw3Score>, f64) =
                timed(|| pool.install(|| (0..threads).into_par_iter().map(|_| sw3_score(a, b, c, &scoring)).collect()));
            want = Some(results[0]);
            let r = Row::reference(threads, n.to_string(), threads, cells, s);
            print(&r);
            rows.push(r);
        }
        for dev in &devices {
            let name = short_name(&dev.info, 28);
            let runs: Vec<(Variant, Tuning)> = variants
                .iter()
                .flat_map(|&v| {
                    let shapes = if v == Variant::Tile { tunings.clone() } else { vec![base] };
                    shapes.into_iter().map(move |t| (v, t))
                })
                .collect();
            for (v, tuning) in runs {
                let first = match sw3::score_on(dev, v, a, b, c, &scoring, &tuning) {
                    Ok(r) => r,
                    Err(e) => {
                        eprintln!("clsw: {} {} on {name}: {e}", v.name(), shape(&tuning));
                        continue;
                    }
                };
                let time = median_of_runs(
                    args.runs,
                    || sw3::score_on(dev, v, a, b, c, &scoring, &tuning),
                    |r| r.kernel_seconds,
                )?;
                let check = match want {
                    Some(w) if w == first.score => "ok",
                    Some(_) => "DIFF",
                    None => "-",
                };
                let r = Row {
                    variant: if v == Variant::Tile { format!("tile {}", shape(&tuning)) } else { v.name().into() },
                    device: name.clone(),
                    size: n.to_string(),
                    triples: 1,
                    cells,
                    kernel_s: time.kernel_s,
                    e2e_s: time.e2e_s,
                    check: check.into(),
                };
                print(&r);
                rows.push(r);
            }
        }
    }

    if args.channels >= 3 {
        let n = args.channel_length;
        let words = sax_words(args.channels, n, args.sax_alphabet, args.seed)?;
        let refs: Vec<&[u8]> = words.iter().map(|w| w.as_slice()).collect();
        let triples = sw3::all_triples(args.channels)?;
        let size = format!("{}x{}", args.channels, n);
        let per = (n as f64).powi(3);
        // CPU reference on a sample of the triples (spread over the list).
        let sample_n = args.cpu_batch_triples.unwrap_or(2 * threads).min(triples.len());
        let mut sample: Vec<(usize, Sw3Score)> = Vec::new();
        if threads > 0 && sample_n > 0 {
            let picks: Vec<usize> = (0..sample_n).map(|k| k * triples.len() / sample_n).collect();
            let s;
            (sample, s) = timed(|| {
                pool.install(|| {
                    picks
                        .par_iter()
                        .map(|&k| {
                            let x = triples[k];
                            (k, sw3_score(refs[x[0] as usize], refs[x[1] as usize], refs[x[2] as usize], &scoring))
                        })
                        .collect()
                })
            });
            let r = Row::reference(threads, size.clone(), sample_n, per, s);
            print(&r);
            rows.push(r);
        }
        for (dev, tuning) in devices.iter().flat_map(|d| tunings.iter().map(move |t| (d, *t))) {
            let name = short_name(&dev.info, 28);
            let first = match sw3::batch_on(dev, &refs, &triples, &scoring, &tuning) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("clsw: batch {} on {name}: {e}", shape(&tuning));
                    continue;
                }
            };
            let time = median_of_runs(
                args.runs,
                || sw3::batch_on(dev, &refs, &triples, &scoring, &tuning),
                |r| r.kernel_seconds,
            )?;
            let ok = sample.iter().all(|&(k, s)| first.scores[k] == s);
            let r = Row {
                variant: format!("batch {}", shape(&tuning)),
                device: name,
                size: size.clone(),
                triples: triples.len(),
                cells: per * triples.len() as f64,
                kernel_s: time.kernel_s,
                e2e_s: time.e2e_s,
                check: if sample.is_empty() {
                    "-".into()
                } else if ok {
                    "ok".into()
                } else {
                    "DIFF".into()
                },
            };
            print(&r);
            rows.push(r);
        }
    }

    // Device vs CPU reference, per size.
    for r in rows.iter().filter(|r| r.variant != "reference") {
        if let Some(cpu) = rows.iter().find(|c| c.variant == "reference" && c.size == r.size) {
            println!(
                "# {} {} on {}: {:.1}x the CPU reference on {threads} threads (device time; {:.1}x end to end)",
                r.variant,
                r.size,
                r.device,
                r.gcells(r.kernel_s) / cpu.gcells(cpu.e2e_s),
                r.gcells(r.e2e_s) / cpu.gcells(cpu.e2e_s)
            );
        }
    }
    if let Some(path) = &args.csv {
        let lines: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "{},{},{},{},{},{},{},{},{},{}",
                    r.variant,
                    r.device.replace(',', " "),
                    r.size,
                    r.triples,
                    r.cells,
                    r.kernel_s,
                    r.e2e_s,
                    r.gcells(r.kernel_s),
                    r.gcells(r.e2e_s),
                    r.check
                )
            })
            .collect();
        write_csv(path, CSV_HEADER, &lines)?;
    }
    if rows.iter().any(|r| r.check == "DIFF") {
        return Err(Error::Device("a device result differs from the CPU reference (check column)".into()));
    }
    Ok(())
}
