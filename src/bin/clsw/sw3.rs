//! `clsw sw3`: three-sequence local alignment of FASTA records, or of every triple of
//! channels of a time series turned into SAX words.

use crate::progress::{Progress, STEPS};
use clap::Args;
use clsw::engine::WorkerRef;
use clsw::scoring::Scoring;
use clsw::seq::Sequence;
use clsw::sw3::sax;
use clsw::sw3::{self, Alignment3, BatchRow};
use clsw::words::counted;
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
    scoring: crate::args::ScoringArgs,
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
    #[command(flatten)]
    device: crate::args::DeviceArgs,
    /// Columns per block in the alignment view.
    #[arg(long, default_value_t = 60)]
    width: usize,
    #[command(flatten)]
    output: crate::args::OutArgs,
    #[command(flatten)]
    report: crate::args::ReportArgs,
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

fn series_input(args: &Sw3Args, path: &Path) -> Result<Input> {
    let series = sax::read_series(path)?;
    let n = series.channels.len();
    if n < 3 {
        let channels = counted(n as u64, "channel", "channels");
        return Err(Error::InvalidArgument(format!("{}: {channels}; sw3 needs at least 3", path.display())));
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
        args.report.note(format_args!(
            "{}: {} (zero variance; every segment gets the middle symbol): {}",
            path.display(),
            if constant.len() == 1 { "a constant channel" } else { "constant channels" },
            constant.join(", ")
        ));
    }
    Ok(Input {
        names: series.names,
        seqs,
        letter: Box::new(|c| b'a' + c),
        triples: sw3::all_triples(n)?,
        scoring: sax::scoring(&args.scoring.request())?,
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
        args.files.iter().map(|f| crate::args::read_sequences(f, alphabet, &args.report)).collect::<Result<_>>()?;
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

/// The scoring as the report and `clsw bench sw3` state it.
pub fn describe(sc: &Scoring) -> String {
    let gaps = if sc.gaps.open == 0 {
        format!("linear gap {}", sc.gaps.extend)
    } else {
        format!("gap open {} extend {} (quasi-natural)", sc.gaps.open, sc.gaps.extend)
    };
    format!("sum of pairs, {}, {gaps}", sc.matrix.name())
}

/// Every triple's score: [`sw3::batch`]'s in one call, or, with progress shown, in
/// [`STEPS`] calls of a share of the triples each, the bar advancing by their cells.
fn scores_with_progress(args: &Sw3Args, engine: &Engine, seqs: &[&[u8]], input: &Input) -> Result<Vec<sw3::Sw3Score>> {
    let cells = |triples: &[[u32; 3]]| -> u64 {
        triples.iter().map(|t| t.iter().map(|&x| seqs[x as usize].len() as u64).product::<u64>()).sum()
    };
    let total = input.triples.len();
    let progress = Progress::new(&args.report, Some(cells(&input.triples)), format!("0/{total} triples"), false);
    let steps = if progress.shown() { STEPS } else { 1 };
    let mut scores = Vec::with_capacity(total);
    for share in input.triples.chunks(total.div_ceil(steps).max(1)) {
        scores.extend(sw3::batch(engine, seqs, share, &input.scoring)?);
        let done = scores.len();
        progress.advance(cells(share), format!("{done}/{total} triples"), || {
            format!("sw3: {done}/{total} triples, {:.1} s", progress.seconds())
        });
    }
    Ok(scores)
}

/// 1-based first and last positions of a segment (an empty one prints as `end+1 end`).
fn span(start: usize, end: usize) -> (usize, usize) {
    (start + 1, end)
}

pub fn run(args: &Sw3Args) -> Result<()> {
    let inputs: Vec<&Path> = args.files.iter().map(PathBuf::as_path).chain(args.series.as_deref()).collect();
    if let (Some(table), Some(out)) = (args.table.as_deref(), args.output.out.as_deref()) {
        clsw::outfile::refuse_same_output(("--table", table), ("-o", out))?;
    }
    let mut table = args.table.as_deref().map(|p| crate::out::file(p, &inputs)).transpose()?;
    let input = match &args.series {
        Some(path) => series_input(args, path)?,
        None => fasta_input(args)?,
    };
    let engine = Engine::new(args.device.spec()?)?;
    let refs: Vec<&[u8]> = input.seqs.iter().map(|s| s.as_slice()).collect();
    let t = Instant::now();
    let scores = scores_with_progress(args, &engine, &refs, &input)?;
    let score_s = t.elapsed().as_secs_f64();
    let rows = sw3::ranked(&input.triples, &scores)?;
    let top: Vec<&BatchRow> = rows.iter().filter(|r| r.score.score > 0).take(args.top).collect();
    let alignments: Vec<Option<Alignment3>> = top
        .par_iter()
        .map(|r| {
            let s = r.triple.map(|x| refs[x as usize]);
            sw3::align_from_end(s[0], s[1], s[2], &input.scoring, r.score)
        })
        .collect::<Result<_>>()?;

    if let Some(mut f) = table.take() {
        let path = f.path().to_path_buf();
        let io = |e| Error::io(&path, e);
        writeln!(f, "a\tb\tc\tscore\ta_end\tb_end\tc_end").map_err(io)?;
        for r in &rows {
            let [x, y, z] = r.triple.map(|i| input.names[i as usize].as_str());
            let e = r.score.end.unwrap_or([0; 3]);
            writeln!(f, "{x}\t{y}\t{z}\t{}\t{}\t{}\t{}", r.score.score, e[0], e[1], e[2]).map_err(io)?;
        }
        f.commit()?;
    }

    let mut out = crate::out::Output::open(args.output.out.as_deref(), &inputs)?;
    let out_name = out.name();
    let io = |e| Error::io(&out_name, e);
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
                WorkerRef::OpenCl(d) => d.label(),
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
        let more = counted((rows.len() - top.len()) as u64, "more triple", "more triples");
        writeln!(out, "# {more} not shown (--top, or --table FILE for all)").map_err(io)?;
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
    out.finish()
}
