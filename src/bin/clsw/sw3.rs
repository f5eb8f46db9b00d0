//! `clsw sw3` (three-sequence local alignment of FASTA records, or of every triple of
//! channels of a time series turned into SAX words) and `clsw bench sw3` (cells per
//! second per kernel variant, device and size, beside the CPU reference).

use clap::Args;
use clsw::device::{Backend, ClDevice, DeviceSpec};
use clsw::engine::WorkerRef;
use clsw::reference::sw3::sw3_score;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::{Alphabet, Sequence};
use clsw::sw3::sax;
use clsw::sw3::{self, Alignment3, BatchRow, Sw3Score, Tuning, Variant};
use clsw::{Engine, Error, Result};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args)]
pub struct Sw3Args {
    /// Three FASTA files (plain or gzip): every record of A with every record of B and C.
    #[arg(num_args = 3, value_names = ["A", "B", "C"], required_unless_present = "series")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    scoring: super::ScoringArgs,
    /// A multichannel time series (CSV or TSV, one column per channel, header optional):
    /// every triple of channels as SAX words, scored with match/mismatch (default: the
    /// seed's match 1, mismatch -1, linear gap 1).
    #[arg(long, conflicts_with = "files")]
    series: Option<PathBuf>,
    /// SAX word length (segments per channel) [default: the channel length].
    #[arg(long)]
    sax_word: Option<usize>,
    /// SAX alphabet size (3 to 20).
    #[arg(long, default_value_t = 8)]
    sax_alphabet: usize,
    /// Triples shown with their alignment (the best ones first).
    #[arg(long, default_value_t = 20)]
    top: usize,
    /// Write the whole results table (every triple: a, b, c, score, ends) to this TSV file.
    #[arg(long)]
    table: Option<PathBuf>,
    /// Devices: auto, gpu, cpu, reference, all, an index or a name [default: CLSW_DEVICE, else auto].
    #[arg(long)]
    device: Option<String>,
    /// Columns per block in the alignment view.
    #[arg(long, default_value_t = 60)]
    width: usize,
}

/// Everything a run aligns: names, codes, how to print codes, the triples.
struct Input {
    names: Vec<String>,
    seqs: Vec<Vec<u8>>,
    letter: Box<dyn Fn(u8) -> u8 + Sync>,
    triples: Vec<[u32; 3]>,
    scoring: Scoring,
    what: String,
}

/// SAX words: codes 0..alpha-1 scored by a match/mismatch table (the protein table has
/// 24 codes, enough for every SAX alphabet).
fn sax_scoring(args: &super::ScoringArgs) -> Result<Scoring> {
    if args.matrix.is_some() {
        return Err(Error::InvalidArgument(
            "--series: SAX words are scored with --match/--mismatch, not --matrix".into(),
        ));
    }
    let (m, x) = (args.match_score.unwrap_or(1), args.mismatch.unwrap_or(-1));
    let matrix = Matrix::match_mismatch(Alphabet::Protein, m, x)?;
    let gaps = Gaps::affine(args.gap_open.unwrap_or(0), args.gap_extend.unwrap_or(1))?;
    Ok(Scoring::new(matrix, gaps))
}

fn series_input(args: &Sw3Args, path: &Path) -> Result<Input> {
    let series = sax::read_series(path)?;
    let n = series.channels.len();
    if n < 3 {
        return Err(Error::InvalidArgument(format!("{}: {n} channel(s); sw3 needs at least 3", path.display())));
    }
    let length = series.channels[0].len();
    let word = args.sax_word.unwrap_or(length);
    let mut seqs = Vec::with_capacity(n);
    let mut constant = Vec::new();
    for (name, ch) in series.names.iter().zip(&series.channels) {
        let w = sax::sax(ch, word, args.sax_alphabet)?;
        if w.constant {
            constant.push(name.clone());
        }
        seqs.push(w.codes);
    }
    if !constant.is_empty() {
        eprintln!(
            "clsw: {}: constant channel(s) (zero variance; every segment gets the middle symbol): {}",
            path.display(),
            constant.join(", ")
        );
    }
    Ok(Input {
        names: series.names,
        seqs,
        letter: Box::new(|c| b'a' + c),
        triples: sw3::all_triples(n),
        scoring: sax_scoring(&args.scoring)?,
        what: format!(
            "{}: {n} channels of {length} points, SAX word {word}, alphabet {}",
            path.display(),
            args.sax_alphabet
        ),
    })
}

fn fasta_input(args: &Sw3Args) -> Result<Input> {
    let alphabet = args.scoring.alphabet_for(&args.files[0])?;
    let scoring = args.scoring.scoring(alphabet)?;
    let sets: Vec<Vec<Sequence>> =
        args.files.iter().map(|f| super::read_sequences(f, alphabet)).collect::<Result<_>>()?;
    let mut names = Vec::new();
    let mut seqs = Vec::new();
    let mut first = [0u32; 3];
    for (r, set) in sets.iter().enumerate() {
        first[r] = names.len() as u32;
        for s in set {
            names.push(s.id.clone());
            seqs.push(s.residues.clone());
        }
    }
    let mut triples = Vec::new();
    for x in 0..sets[0].len() as u32 {
        for y in 0..sets[1].len() as u32 {
            for z in 0..sets[2].len() as u32 {
                triples.push([first[0] + x, first[1] + y, first[2] + z]);
            }
        }
    }
    Ok(Input {
        names,
        seqs,
        letter: Box::new(move |c| alphabet.decode(c)),
        what: format!("{} x {} x {} records", sets[0].len(), sets[1].len(), sets[2].len()),
        triples,
        scoring,
    })
}

fn describe(sc: &Scoring) -> String {
    let gaps = if sc.gaps.open == 0 {
        format!("linear gap {}", sc.gaps.extend)
    } else {
        format!("gap open {} extend {} (quasi-natural)", sc.gaps.open, sc.gaps.extend)
    };
    format!("sum of pairs, {}, {gaps}", sc.matrix.name())
}

/// 1-based first and last positions of a segment (an empty one prints as `end+1 end`).
fn span(start: usize, end: usize) -> (usize, usize) {
    (start + 1, end)
}

pub fn run(args: &Sw3Args) -> Result<()> {
    let input = match &args.series {
        Some(path) => series_input(args, path)?,
        None => fasta_input(args)?,
    };
    let engine = Engine::open(args.device.as_deref())?;
    let refs: Vec<&[u8]> = input.seqs.iter().map(|s| s.as_slice()).collect();
    let t = Instant::now();
    let scores = sw3::batch(&engine, &refs, &input.triples, &input.scoring)?;
    let score_s = t.elapsed().as_secs_f64();
    let rows = sw3::ranked(&input.triples, &scores);
    let top: Vec<&BatchRow> = rows.iter().filter(|r| r.score.score > 0).take(args.top).collect();
    let alignments: Vec<Option<Alignment3>> = top
        .par_iter()
        .map(|r| {
            let s = r.triple.map(|x| refs[x as usize]);
            sw3::align_from_end(s[0], s[1], s[2], &input.scoring, r.score)
        })
        .collect();

    if let Some(path) = &args.table {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| Error::io(path, e))?);
        let io = |e| Error::io(path, e);
        writeln!(f, "a\tb\tc\tscore\ta_end\tb_end\tc_end").map_err(io)?;
        for r in &rows {
            let [x, y, z] = r.triple.map(|i| input.names[i as usize].as_str());
            let e = r.score.end.unwrap_or([0; 3]);
            writeln!(f, "{x}\t{y}\t{z}\t{}\t{}\t{}\t{}", r.score.score, e[0], e[1], e[2]).map_err(io)?;
        }
        f.flush().map_err(io)?;
    }

    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let io = |e| Error::io("standard output", e);
    writeln!(
        out,
        "# clsw sw3: {}; {} triples; {}; scored in {:.2} s on {}",
        input.what,
        input.triples.len(),
        describe(&input.scoring),
        score_s,
        engine
            .workers()
            .iter()
            .map(|w| match w {
                WorkerRef::OpenCl(d) => d.info.label(),
                WorkerRef::Native => "the CPU reference (parallel over triples)".to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    )
    .map_err(io)?;
    writeln!(
        out,
        "# ends are 1-based positions of the last aligned residue (the alignment covers start..end; an empty \
         segment shows as end+1..end)"
    )
    .map_err(io)?;
    writeln!(out, "a\tb\tc\tscore\ta_start\ta_end\tb_start\tb_end\tc_start\tc_end\tcolumns\tidentical").map_err(io)?;
    for (r, aln) in top.iter().zip(&alignments) {
        let [x, y, z] = r.triple.map(|i| input.names[i as usize].as_str());
        if let Some(a) = aln {
            let s = r.triple.map(|i| refs[i as usize]);
            let (p, q, w) = (span(a.start[0], a.end[0]), span(a.start[1], a.end[1]), span(a.start[2], a.end[2]));
            writeln!(
                out,
                "{x}\t{y}\t{z}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                a.score,
                p.0,
                p.1,
                q.0,
                q.1,
                w.0,
                w.1,
                a.len(),
                a.identities(s)
            )
            .map_err(io)?;
        }
    }
    if top.len() < rows.len() && args.table.is_none() {
        writeln!(out, "# {} more triple(s) not shown (--top, or --table FILE for all)", rows.len() - top.len())
            .map_err(io)?;
    }
    for (r, aln) in top.iter().zip(&alignments) {
        let Some(a) = aln else { continue };
        let names = r.triple.map(|i| input.names[i as usize].as_str());
        let s = r.triple.map(|i| refs[i as usize]);
        writeln!(out, "\n# {} / {} / {}: score {}", names[0], names[1], names[2], a.score).map_err(io)?;
        write!(out, "{}", a.view(names, s, &input.letter, args.width)).map_err(io)?;
    }
    if rows.iter().all(|r| r.score.score == 0) {
        writeln!(out, "# no triple has a positive-scoring alignment").map_err(io)?;
    }
    out.flush().map_err(io)
}

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
    /// Devices (as for --device elsewhere) [default: CLSW_DEVICE, else auto].
    #[arg(long)]
    device: Option<String>,
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

/// A deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Synthetic multichannel recording (fNIRS-like): shared slow oscillations with
/// per-channel phase and weight, a per-channel random walk and noise.
fn synthetic_series(channels: usize, length: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
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
    fn gcells(&self, s: f64) -> f64 {
        if s > 0.0 { self.cells / s / 1e9 } else { f64::NAN }
    }
}

pub fn run_bench(args: &BenchSw3Args) -> Result<()> {
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
    let mut devices = Vec::new();
    let choice = DeviceSpec::resolve(args.device.as_deref())?;
    for b in choice.select()? {
        if let Backend::OpenCl(info) = b {
            devices.push(ClDevice::new(info)?);
        }
    }
    if devices.is_empty() {
        eprintln!("clsw: no OpenCL device: only the CPU reference rows");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| Error::InvalidArgument(format!("thread pool: {e}")))?;
    let mut rows: Vec<Row> = Vec::new();
    let print = |r: &Row| {
        println!(
            "{:<17} {:<28} {:>9} {:>7} {:>11.4e} {:>10.4} {:>10.4} {:>9.2} {:>9.2} {:<6}",
            r.variant,
            r.device,
            r.size,
            r.triples,
            r.cells,
            r.kernel_s,
            r.e2e_s,
            r.gcells(r.kernel_s),
            r.gcells(r.e2e_s),
            r.check
        )
    };
    println!(
        "{:<17} {:<28} {:>9} {:>7} {:>11} {:>10} {:>10} {:>9} {:>9} {:<6}",
        "variant", "device", "n", "triples", "cells", "kernel_s", "e2e_s", "Gcells/s", "e2e_Gc/s", "check"
    );

    for &n in args.lengths.iter().filter(|&&n| n > 0) {
        let words = sax_words(3, n, args.sax_alphabet, args.seed + n as u64)?;
        let (a, b, c) = (&words[0], &words[1], &words[2]);
        let cells = (n as f64).powi(3);
        // CPU reference: one copy per thread.
        let mut want: Option<Sw3Score> = None;
        if threads > 0 && n <= args.cpu_max_length {
            let t = Instant::now();
            let results: Vec<Sw3Score> =
                pool.install(|| (0..threads).into_par_iter().map(|_| sw3_score(a, b, c, &scoring)).collect());
            let s = t.elapsed().as_secs_f64();
            want = Some(results[0]);
            let r = Row {
                variant: "reference".into(),
                device: format!("cpu x{threads} threads"),
                size: n.to_string(),
                triples: threads,
                cells: cells * threads as f64,
                kernel_s: s,
                e2e_s: s,
                check: "-".into(),
            };
            print(&r);
            rows.push(r);
        }
        for dev in &devices {
            let name: String = dev.info.name.trim().chars().take(28).collect();
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
                let (mut ks, mut es) = (Vec::new(), Vec::new());
                for _ in 0..args.runs.max(1) {
                    let t = Instant::now();
                    let run = sw3::score_on(dev, v, a, b, c, &scoring, &tuning)?;
                    es.push(t.elapsed().as_secs_f64());
                    ks.push(run.kernel_seconds);
                }
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
                    kernel_s: median(ks),
                    e2e_s: median(es),
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
        let triples = sw3::all_triples(args.channels);
        let size = format!("{}x{}", args.channels, n);
        let per = (n as f64).powi(3);
        // CPU reference on a sample of the triples (spread over the list).
        let sample_n = args.cpu_batch_triples.unwrap_or(2 * threads).min(triples.len());
        let mut sample: Vec<(usize, Sw3Score)> = Vec::new();
        if threads > 0 && sample_n > 0 {
            let picks: Vec<usize> = (0..sample_n).map(|k| k * triples.len() / sample_n).collect();
            let t = Instant::now();
            sample = pool.install(|| {
                picks
                    .par_iter()
                    .map(|&k| {
                        let x = triples[k];
                        (k, sw3_score(refs[x[0] as usize], refs[x[1] as usize], refs[x[2] as usize], &scoring))
                    })
                    .collect()
            });
            let s = t.elapsed().as_secs_f64();
            let r = Row {
                variant: "reference".into(),
                device: format!("cpu x{threads} threads"),
                size: size.clone(),
                triples: sample_n,
                cells: per * sample_n as f64,
                kernel_s: s,
                e2e_s: s,
                check: "-".into(),
            };
            print(&r);
            rows.push(r);
        }
        for (dev, tuning) in devices.iter().flat_map(|d| tunings.iter().map(move |t| (d, *t))) {
            let name: String = dev.info.name.trim().chars().take(28).collect();
            let first = match sw3::batch_on(dev, &refs, &triples, &scoring, &tuning) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("clsw: batch {} on {name}: {e}", shape(&tuning));
                    continue;
                }
            };
            let (mut ks, mut es) = (Vec::new(), Vec::new());
            for _ in 0..args.runs.max(1) {
                let t = Instant::now();
                let run = sw3::batch_on(dev, &refs, &triples, &scoring, &tuning)?;
                es.push(t.elapsed().as_secs_f64());
                ks.push(run.kernel_seconds);
            }
            let ok = sample.iter().all(|&(k, s)| first.scores[k] == s);
            let r = Row {
                variant: format!("batch {}", shape(&tuning)),
                device: name,
                size: size.clone(),
                triples: triples.len(),
                cells: per * triples.len() as f64,
                kernel_s: median(ks),
                e2e_s: median(es),
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
        let mut text =
            String::from("variant,device,n,triples,cells,kernel_s,end_to_end_s,gcells_per_s,e2e_gcells_per_s,check\n");
        for r in &rows {
            text.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{}\n",
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
            ));
        }
        std::fs::write(path, text).map_err(|e| Error::io(path, e))?;
    }
    if rows.iter().any(|r| r.check == "DIFF") {
        return Err(Error::Device("a device result differs from the CPU reference (check column)".into()));
    }
    Ok(())
}
