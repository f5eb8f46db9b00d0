//! `clsw align`: local alignment with traceback of every pair of two FASTA files.

use crate::args::{DeviceArgs, ReportArgs, ScoringArgs, read_sequences};
use crate::progress::{Progress, STEPS};
use clap::ValueEnum;
use clsw::align::Alignment;
use clsw::align::display::{TABULAR_COLUMNS, pairwise_view, tabular_line};
use clsw::device::{DeviceChoice, DeviceSpec};
use clsw::scoring::Scoring;
use clsw::seq::Sequence;
use clsw::{Error, Result, traceback};
use rayon::prelude::*;
use std::io::Write;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum AlignFormat {
    /// Readable pairwise view, with the tabular line under it.
    Pairwise,
    /// Tab-separated lines only (BLAST -outfmt 6 order, then raw score and CIGAR).
    Tabular,
}

#[derive(clap::Args)]
#[command(mut_arg("device", |a| a.help(
    "Accepted as in every job command, but align computes on the CPU, on --threads cores (its \
     traceback has no OpenCL kernel): a device other than native is noted and not used [default: native]"
)))]
#[command(mut_arg("portable", |a| a.help(
    "Accepted as in every job command, but align runs no kernel: noted and not used"
)))]
pub struct AlignArgs {
    /// FASTA file of first sequences (plain or gzip); with --pssm, of the sequences
    /// aligned with the profile's query.
    a: PathBuf,
    /// FASTA file of second sequences (plain or gzip); not with --pssm.
    #[arg(required_unless_present = "pssm", conflicts_with = "pssm")]
    b: Option<PathBuf>,
    #[command(flatten)]
    pssm: crate::args::PssmArgs,
    #[command(flatten)]
    scoring: ScoringArgs,
    #[command(flatten)]
    mode: crate::args::ModeArgs,
    #[arg(long, value_enum, default_value_t = AlignFormat::Pairwise)]
    outfmt: AlignFormat,
    /// Columns per line in the pairwise view.
    #[arg(long, default_value_t = 60)]
    width: usize,
    #[command(flatten)]
    output: crate::args::OutArgs,
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    report: ReportArgs,
}

pub fn run(args: &AlignArgs) -> Result<()> {
    let spec = args.device.device.as_deref().map(str::parse::<DeviceSpec>).transpose()?;
    let mut unused: Vec<String> = spec
        .filter(|spec| spec.choices().iter().any(|c| *c != DeviceChoice::Native))
        .map(|spec| format!("--device {spec}"))
        .into_iter()
        .collect();
    if args.device.portable {
        unused.push("--portable".into());
    }
    if !unused.is_empty() {
        args.report.note(format_args!(
            "{}: align computes on the CPU (its traceback has no OpenCL kernel); no device is used",
            unused.join(", ")
        ));
    }
    let alphabet = args.scoring.alphabet_for(&args.a)?;
    let scoring = args.scoring.scoring(alphabet)?.in_mode(args.mode.mode()?);
    // With a profile, its query is the first sequence and the file's are the second.
    let (scoring, a, b) = match (args.pssm.profile(&scoring)?, &args.b) {
        (Some((scoring, query)), _) => (scoring, vec![query], read_sequences(&args.a, alphabet, &args.report)?),
        (None, Some(b)) => {
            (scoring, read_sequences(&args.a, alphabet, &args.report)?, read_sequences(b, alphabet, &args.report)?)
        }
        (None, None) => return Err(Error::InvalidArgument("give a second FASTA file, or --pssm".into())),
    };
    let pairs: Vec<(&Sequence, &Sequence)> = a.iter().flat_map(|x| b.iter().map(move |y| (x, y))).collect();
    for (x, y) in &pairs {
        scoring.check_lengths(x.residues.len(), y.residues.len(), format_args!("'{}' and '{}'", x.id, y.id))?;
    }
    let inputs: Vec<&std::path::Path> =
        [Some(&args.a), args.b.as_ref(), args.pssm.pssm.as_ref()].into_iter().flatten().map(PathBuf::as_path).collect();
    let mut out = crate::out::Output::open(args.output.out.as_deref(), &inputs)?;
    let out_name = out.name();
    let io = |e| Error::io(&out_name, e);
    if args.outfmt == AlignFormat::Tabular {
        writeln!(out, "# {TABULAR_COLUMNS}").map_err(io)?;
    }
    let cells =
        |batch: &[(&Sequence, &Sequence)]| -> u64 { batch.iter().map(|(x, y)| (x.len() * y.len()) as u64).sum() };
    let total = pairs.len();
    let progress = Progress::new(&args.report, Some(cells(&pairs)), format!("0/{total} pairs"), false);
    // A few pairs per thread at a time, each batch written as soon as it is aligned, so
    // a reader downstream (`| head`) has the first results at once; at most STEPS
    // batches when progress is shown, a line each.
    let mut batch_pairs = rayon::current_num_threads() * 4;
    if progress.shown() {
        batch_pairs = batch_pairs.max(total.div_ceil(STEPS));
    }
    let mut done = 0;
    for batch in pairs.chunks(batch_pairs) {
        let alignments: Vec<_> =
            batch.par_iter().map(|(x, y)| traceback::align(&x.residues, &y.residues, &scoring)).collect();
        write_batch(&mut out, batch, &alignments, args, &scoring).map_err(io)?;
        out.flush().map_err(io)?;
        done += batch.len();
        progress.advance(cells(batch), format!("{done}/{total} pairs"), || {
            format!("align: {done}/{total} pairs, {:.1} s", progress.seconds())
        });
    }
    out.finish()
}

fn write_batch(
    out: &mut impl Write,
    pairs: &[(&Sequence, &Sequence)],
    alignments: &[Option<Alignment>],
    args: &AlignArgs,
    scoring: &Scoring,
) -> std::io::Result<()> {
    for ((x, y), aln) in pairs.iter().zip(alignments) {
        match (aln, args.outfmt) {
            (None, AlignFormat::Pairwise) => writeln!(out, "{} vs {}: no positive-scoring alignment\n", x.id, y.id)?,
            (None, AlignFormat::Tabular) => {}
            (Some(aln), AlignFormat::Pairwise) => {
                let view = pairwise_view(&x.id, &y.id, &x.residues, &y.residues, aln, scoring, args.width);
                writeln!(out, "{view}\n# {TABULAR_COLUMNS}\n{}\n", tabular_line(&x.id, &y.id, aln))?;
            }
            (Some(aln), AlignFormat::Tabular) => writeln!(out, "{}", tabular_line(&x.id, &y.id, aln))?,
        }
    }
    Ok(())
}
