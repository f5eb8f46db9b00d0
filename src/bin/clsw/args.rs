//! Options several commands share: the devices, the scoring and alphabet, and reading
//! FASTA inputs with their notes on standard error.

use clap::ValueEnum;
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::{Alphabet, EmptyRecords, Sequence, fasta};
use clsw::{Error, Result};
use std::path::Path;

/// `--device`, the same text in every job command.
#[derive(clap::Args)]
pub struct DeviceArgs {
    /// Devices: auto, gpu, cpu, native (the SIMD CPU path, no OpenCL), all, an index or a
    /// name from `clsw devices`, or a comma-separated list of these, each a share of the
    /// work (`0,1`: devices 0 and 1) [default: CLSW_DEVICE, else auto].
    #[arg(long)]
    pub device: Option<String>,
}

/// Options shared by everything that scores alignments.
#[derive(clap::Args)]
pub struct ScoringArgs {
    /// Built-in matrix (BLOSUM45/50/62/80/90, PAM30/70/250, EDNAFULL) or an NCBI-format
    /// matrix file [default: BLOSUM62 for protein, EDNAFULL for DNA].
    #[arg(long)]
    pub matrix: Option<String>,
    /// Match score: use match/mismatch scoring instead of a matrix.
    #[arg(long = "match", requires = "mismatch")]
    pub match_score: Option<i32>,
    /// Mismatch score (zero or negative), with --match.
    #[arg(long, allow_hyphen_values = true)]
    pub mismatch: Option<i32>,
    /// Gap open cost: a gap of length L costs open + L * extend [default: the matrix's usual].
    #[arg(long)]
    pub gap_open: Option<i32>,
    /// Gap extension cost, charged for every gapped residue [default: the matrix's usual].
    #[arg(long)]
    pub gap_extend: Option<i32>,
    /// Sequence alphabet.
    #[arg(long, value_enum, default_value_t = AlphabetArg::Auto)]
    pub alphabet: AlphabetArg,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum AlphabetArg {
    Auto,
    Protein,
    Dna,
}

impl ScoringArgs {
    pub fn alphabet_for(&self, path: &Path) -> Result<Alphabet> {
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
    pub fn scoring(&self, alphabet: Alphabet) -> Result<Scoring> {
        self.scoring_or(alphabet, None)
    }

    /// As [`scoring`](Self::scoring), with a job's own default (psse's, from the library)
    /// in place of BLOSUM62 or EDNAFULL where it is for this alphabet.
    pub fn scoring_or(&self, alphabet: Alphabet, job_default: Option<Scoring>) -> Result<Scoring> {
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

pub fn read_sequences(path: &Path, alphabet: Alphabet) -> Result<Vec<Sequence>> {
    let (seqs, report) = fasta::read_file(path, alphabet, EmptyRecords::Error)?;
    if let Some(notes) = report.notes(alphabet) {
        eprintln!("clsw: {}: {notes}", path.display());
    }
    Ok(seqs)
}
