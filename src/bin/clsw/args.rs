//! Options several commands share: the devices, the output, what is reported on
//! standard error, the scoring and alphabet, and reading FASTA inputs with their notes.

use clap::ValueEnum;
use clsw::Result;
use clsw::device::DeviceSpec;
use clsw::scoring::{DEFAULT_MATRICES, Mode, Pssm, Scoring, ScoringRequest};
use clsw::seq::{Alphabet, AlphabetChoice, EmptyRecords, Sequence, fasta};
use std::path::{Path, PathBuf};

/// `--device` and `--portable`, the same in every job command.
#[derive(clap::Args)]
pub struct DeviceArgs {
    /// Devices: auto, gpu, cpu, native (the SIMD CPU path, no OpenCL), all, rank-gpu (the
    /// GPU of this MPI rank's local rank), an index or a name from `clsw devices`, or a
    /// comma-separated list of these, each a share of the work (`0,1`: devices 0 and 1)
    /// [default: CLSW_DEVICE, else auto].
    #[arg(long)]
    pub device: Option<String>,
    /// Build the portable kernels on every OpenCL device, with no vendor code (no
    /// inline PTX on NVIDIA), to check and time them there [default: CLSW_PORTABLE=1
    /// turns it on].
    #[arg(long)]
    pub portable: bool,
}

impl DeviceArgs {
    /// The devices asked for: `--device`, else `CLSW_DEVICE`, else auto; portable with
    /// `--portable`, else as `CLSW_PORTABLE` says.
    pub fn spec(&self) -> Result<DeviceSpec> {
        let spec = DeviceSpec::resolve(self.device.as_deref())?;
        Ok(if self.portable { spec.with_portable(true) } else { spec })
    }
}

/// The values of an option that names one of the library's enumerations: the library's
/// own parser checks a value (names, aliases, any case) and its own list of names is
/// what `--help` shows, so the names have one source. The value stays text, parsed
/// where it is used.
#[derive(Clone)]
pub struct Names {
    names: Vec<&'static str>,
    check: fn(&str) -> Result<()>,
}

impl Names {
    /// The names of `T` (its `ALL`, by `name`), checked by its `FromStr`.
    pub fn of<T: std::str::FromStr<Err = clsw::Error>>(names: impl IntoIterator<Item = &'static str>) -> Names {
        Names::checked(names, |s| s.parse::<T>().map(drop))
    }

    /// `names`, checked by `check`.
    pub fn checked(names: impl IntoIterator<Item = &'static str>, check: fn(&str) -> Result<()>) -> Names {
        Names { names: names.into_iter().collect(), check }
    }
}

impl clap::builder::TypedValueParser for Names {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<String, clap::Error> {
        use clap::error::ErrorKind;
        let text = value.to_str().ok_or_else(|| clap::Error::new(ErrorKind::InvalidUtf8).with_cmd(cmd))?;
        (self.check)(text).map_err(|e| clap::Error::raw(ErrorKind::InvalidValue, format!("{e}\n")).with_cmd(cmd))?;
        Ok(text.to_string())
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(self.names.iter().map(|&n| clap::builder::PossibleValue::new(n))))
    }
}

/// `-o/--out`, the same in every command that writes results.
#[derive(clap::Args)]
pub struct OutArgs {
    /// Write the results to this file (whole, or not at all) instead of standard output.
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
}

/// `--progress` and `--quiet`, the same in every job command: what it reports on
/// standard error beside its results (errors are always reported).
#[derive(clap::Args, Clone, Copy)]
pub struct ReportArgs {
    /// Report progress on standard error: a bar on a terminal, one line per step
    /// otherwise.
    #[arg(long)]
    pub progress: bool,
    /// Nothing on standard error but errors: no notes, warnings, progress or summary
    /// (over --progress).
    #[arg(long)]
    pub quiet: bool,
}

impl ReportArgs {
    /// A note on standard error (`clsw: TEXT`), unless `--quiet`.
    pub fn note(&self, text: impl std::fmt::Display) {
        if !self.quiet {
            eprintln!("clsw: {text}");
        }
    }
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
    #[arg(long, allow_hyphen_values = true, requires = "match_score")]
    pub mismatch: Option<i32>,
    /// Gap open cost: a gap of length L costs open + L * extend; a negative value is
    /// read as its size (ssearch36's `-f -11`) [default: the matrix's usual].
    #[arg(long, allow_negative_numbers = true)]
    pub gap_open: Option<i32>,
    /// Gap extension cost, charged for every gapped residue; a negative value is read
    /// as its size (ssearch36's `-g -1`) [default: the matrix's usual].
    #[arg(long, allow_negative_numbers = true)]
    pub gap_extend: Option<i32>,
    /// Sequence alphabet.
    #[arg(long, value_enum, default_value_t = AlphabetArg::Auto)]
    pub alphabet: AlphabetArg,
}

/// A profile query, in the commands that align a query with subjects (scan, align).
#[derive(clap::Args)]
pub struct PssmArgs {
    /// Query as a profile: PSI-BLAST's checkpoint (`psiblast -out_pssm`, ASN.1 text) or
    /// its ASCII PSSM (`-out_ascii_pssm`). Its query is the one searched, each position
    /// scoring with its own row; letters the file has no column for (the ASCII PSSM's B,
    /// Z, X, *) score as --matrix scores them.
    #[arg(long, value_name = "FILE")]
    pub pssm: Option<PathBuf>,
}

impl PssmArgs {
    /// With `--pssm`: `scoring` with the profile's scores, and its query as a record
    /// (named after the file); the profile's matrix is `scoring`'s.
    pub fn profile(&self, scoring: &Scoring) -> Result<Option<(Scoring, Sequence)>> {
        let Some(path) = &self.pssm else { return Ok(None) };
        let pssm = Pssm::read(path, &scoring.matrix)?;
        let id = path.file_stem().map(|s| s.to_string_lossy().replace(char::is_whitespace, "_")).unwrap_or_default();
        let query = Sequence { id, description: String::new(), residues: pssm.query().to_vec() };
        Ok(Some((scoring.clone().with_pssm(pssm)?, query)))
    }
}

/// The alignment mode, in the commands that align a query with subjects (scan, align).
#[derive(clap::Args)]
pub struct ModeArgs {
    /// Alignment mode: local (Smith-Waterman, as ssearch36), global (Needleman-Wunsch:
    /// both sequences whole, end gaps charged, as ggsearch36) or glocal (the query
    /// whole, anywhere in the subject, as glsearch36).
    #[arg(long, default_value = "local", value_parser = Names::of::<Mode>(Mode::ALL.map(Mode::name)))]
    pub mode: String,
}

impl ModeArgs {
    /// The mode the option names (checked by its parser).
    pub fn mode(&self) -> Result<Mode> {
        self.mode.parse()
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum AlphabetArg {
    Auto,
    Protein,
    Dna,
}

impl AlphabetArg {
    /// The alphabet the option names; `None` for auto (the library chooses).
    pub fn given(self) -> Option<Alphabet> {
        match self {
            AlphabetArg::Auto => None,
            AlphabetArg::Protein => Some(Alphabet::Protein),
            AlphabetArg::Dna => Some(Alphabet::Dna),
        }
    }
}

impl ScoringArgs {
    /// The alphabet of the FASTA file `path`, by the library's rule
    /// ([`AlphabetChoice::fasta`]: `--alphabet`, else the matrix's, else guessed).
    pub fn alphabet_for(&self, path: &Path) -> Result<Alphabet> {
        Ok(AlphabetChoice::fasta(path, self.alphabet.given(), || self.request().matrix_alphabet())?.0)
    }

    /// The options as the library's scoring request.
    pub fn request(&self) -> ScoringRequest {
        ScoringRequest {
            matrix: self.matrix.clone(),
            match_mismatch: self.match_score.zip(self.mismatch),
            // As written: the library reads either sign (Gaps::from_signed).
            gap_open: self.gap_open,
            gap_extend: self.gap_extend,
            mode: None,
        }
    }

    /// The scoring with the library's defaults for search, align and sw3 (BLOSUM62 or
    /// EDNAFULL and the matrix's customary gaps where the options name none).
    pub fn scoring(&self, alphabet: Alphabet) -> Result<Scoring> {
        self.request().resolve(alphabet, DEFAULT_MATRICES)
    }
}

/// The records of the FASTA file `path`, its note (letters substituted) reported.
pub fn read_sequences(path: &Path, alphabet: Alphabet, report: &ReportArgs) -> Result<Vec<Sequence>> {
    let (seqs, read) = fasta::read_file(path, alphabet, EmptyRecords::Error)?;
    if let Some(note) = read.file_note(path, alphabet) {
        report.note(note);
    }
    Ok(seqs)
}
