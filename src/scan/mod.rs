//! Database search on OpenCL devices: one query against many subjects, every subject's
//! exact optimal local score (the recurrence is [`crate::reference`]'s). Each kernel
//! has a host module here named like its source in `cl/` (`team` ↔ `cl/scan_team.cl`);
//! `inter` and `team` share the resident [`scanner`], its [`layout`] of subjects (whose
//! words [`layout_words`] makes on the device), its
//! query [`profile`] and its [`outputs`]. The native SIMD CPU kernels are in [`native`].

pub mod inter;
pub mod intra;
pub mod layout;
pub mod layout_words;
pub mod native;
pub(crate) mod outputs;
pub mod plain;
pub(crate) mod profile;
pub mod scanner;
pub mod team;
pub mod windows;

use crate::device::ClDevice;
use crate::error::Result;
use crate::reference::LocalScore;
use crate::scoring::{Mode, Scoring};
use scanner::{ScanKernel, Scanner, Tuning};

crate::error::named_enum! {
    /// The kernel variants, kept side by side so they can be compared. The C ABI's
    /// `CLSW_VARIANT_FAST` (a retired variant) means each device's own.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Variant ("kernel variant", "variants") {
        /// One work-item per subject, 32-bit, no tiling: the readable twin of the others.
        Plain = "plain",
        /// One work-item per subject, query bands in registers: the inter-task seed's
        /// design (Ligowski & Rudnicki), and the default on CPU devices.
        Inter = "inter",
        /// Two subjects per team of work-items, each holding a slice of the query's rows
        /// in registers; the team passes H and F down by warp shuffles on NVIDIA: the
        /// default on GPUs.
        Team = "team",
        /// One work-group per subject, work-items along the anti-diagonal, 4 x 4 tiles:
        /// the intra-task seed's design (Munekawa et al.).
        Intra = "intra",
    }
}

/// Retired variants, still accepted as [`AUTO`] until the next minor release
/// (CHANGELOG.md): `fast`, two subjects per work-item in packed 16-bit lanes, slower
/// than `team` on every device measured.
pub const RETIRED: [&str; 1] = ["fast"];

/// The name of "each device's own variant" ([`Variant::for_device`]) in [`Variant::choice`].
pub const AUTO: &str = "auto";

impl Variant {
    /// The variant a search runs on `dev` when none is named: `team` on GPUs and other
    /// accelerators, `inter` on CPU devices, which run `team`'s barriers and small
    /// work-groups as loops and build a program per team shape where `inter` has one.
    pub fn for_device(dev: &crate::device::DeviceInfo) -> Variant {
        match dev.kind {
            crate::device::DeviceKind::Cpu => Variant::Inter,
            _ => Variant::Team,
        }
    }

    /// The resident [`Scanner`]'s kernel of this variant (`inter` and `team`), or
    /// `None` for the variants that scan one batch at a time (`plain`, `intra`).
    pub fn scan_kernel(self) -> Option<ScanKernel> {
        match self {
            Variant::Team => Some(ScanKernel::Team),
            Variant::Inter => Some(ScanKernel::Inter),
            Variant::Plain | Variant::Intra => None,
        }
    }

    /// A variant named by a user, or `auto` in any case (`None`): each device's own.
    /// [`RETIRED`] names are taken as `auto` for one release.
    pub fn choice(name: &str) -> Result<Option<Variant>> {
        if name.eq_ignore_ascii_case(AUTO) || RETIRED.iter().any(|r| name.eq_ignore_ascii_case(r)) {
            Ok(None)
        } else {
            name.parse().map(Some)
        }
    }
}

/// Scores `query` against every subject on `dev` with one variant (no residency:
/// the subjects are uploaded for this call).
pub fn scan_once<S: AsRef<[u8]>>(
    dev: &ClDevice,
    variant: Variant,
    query: &[u8],
    subjects: &[S],
    scoring: &Scoring,
) -> Result<ScanOutput> {
    check_kernel_lengths(query.len(), subjects.iter().map(|s| s.as_ref().len()))?;
    scoring.check_query(query, "the query")?;
    match variant {
        Variant::Plain => {
            let (scores, kernel_seconds) = plain::scores(dev, query, &PackedSubjects::new(subjects)?, scoring)?;
            Ok(ScanOutput { scores, recomputed: 0, kernel_seconds })
        }
        Variant::Intra => intra::scores(dev, query, subjects, scoring),
        Variant::Inter | Variant::Team => {
            let kind = variant.scan_kernel().expect("inter and team are the scanner's");
            let subjects: Vec<&[u8]> = subjects.iter().map(AsRef::as_ref).collect();
            Scanner::new(dev, kind, Tuning::default(), &subjects, scoring.matrix.size() as u8)?.scan(query, scoring)
        }
    }
}

/// What a scan of one query returns.
#[derive(Debug, Clone)]
pub struct ScanOutput {
    /// Every subject's score and end, in the order the subjects were given.
    pub scores: Vec<LocalScore>,
    /// Subjects scored at 32 bits after their 16-bit score could have saturated, or
    /// because the scoring does not fit 16-bit lanes at all.
    pub recomputed: usize,
    /// Kernel time on the device, from profiling events.
    pub kernel_seconds: f64,
}

impl ScanOutput {
    fn empty(subjects: usize) -> ScanOutput {
        ScanOutput { scores: vec![LocalScore { score: 0, end: None }; subjects], recomputed: 0, kernel_seconds: 0.0 }
    }

    /// No subjects yet, room for `subjects` ([`append`](Self::append) adds them).
    pub(crate) fn with_capacity(subjects: usize) -> ScanOutput {
        ScanOutput { scores: Vec::with_capacity(subjects), recomputed: 0, kernel_seconds: 0.0 }
    }

    /// Adds the scan of the subjects that follow these (the next chunk of an MPI
    /// rank's share; device shares and batches are joined by [`concat`](Self::concat)).
    pub(crate) fn append(&mut self, next: ScanOutput) {
        if self.scores.is_empty() {
            // The first part is taken whole rather than copied.
            self.scores = next.scores;
        } else {
            self.scores.extend(next.scores);
        }
        self.recomputed += next.recomputed;
        self.kernel_seconds += next.kernel_seconds;
    }

    /// The scans of consecutive runs of subjects (device shares, in database order) as
    /// one: the first part's scores grow in place (a large vector grows without a
    /// copy) and the others' are copied in on every core. Four shares of a 44 M-subject
    /// database (1 GB of scores a query, four H200s): 0.9-1 s a query on one thread,
    /// one query after another; 0.1-0.14 s now.
    pub(crate) fn concat(parts: Vec<ScanOutput>) -> ScanOutput {
        use rayon::prelude::*;
        let mut parts = parts.into_iter();
        let Some(mut out) = parts.next() else { return ScanOutput::with_capacity(0) };
        let rest: Vec<ScanOutput> = parts.collect();
        // Where each later part starts among the scores added.
        let starts: Vec<usize> = rest
            .iter()
            .scan(0, |at, p| {
                let start = *at;
                *at += p.scores.len();
                Some(start)
            })
            .collect();
        let added: usize = rest.iter().map(|p| p.scores.len()).sum();
        out.scores.reserve_exact(added);
        on_device_side_pool(|| {
            out.scores.par_extend((0..added).into_par_iter().with_min_len(1 << 14).map(|i| {
                let p = starts.partition_point(|&s| s <= i) - 1;
                rest[p].scores[i - starts[p]]
            }))
        });
        for p in &rest {
            out.recomputed += p.recomputed;
            out.kernel_seconds += p.kernel_seconds;
        }
        out
    }
}

/// Runs `work` (the host work on the devices' side, which threads of the library's
/// own do: a device's self-test, a scanner arranged and its words made, a
/// landed query's outputs gathered into the caller's order and its saturated subjects
/// recomputed, several devices' shares joined) on a pool of its own, as many threads as
/// the global pool; where that pool cannot start, on the caller's thread (and its
/// pool). Not on the global pool: a search keeps it busy with the hits of earlier
/// queries, and a gather queued behind them held up the device; and a caller that is
/// itself a worker of the global pool, blocked while the devices open, upload or scan,
/// would leave no thread to run them (`tests/search_inside_pool.rs`). On one thread,
/// the gathers of a share of 11 M subjects took 0.4-0.6 s a query (four H200s, 20 G
/// residues), on the path of the last query's results.
pub(crate) fn on_device_side_pool<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    let pool = POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(|i| format!("clsw-device-side-{i}"))
            .build()
            .ok()
    });
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Profile score of padding rows and of the padding letter: low enough that padded
/// cells never reach the best score, high enough that adding it to any 16-bit score
/// cannot wrap.
pub(crate) const PAD_SCORE: i16 = -16384;

/// True when the narrow kernels can hold every E and F of this scoring in 16 bits
/// (they never fall below -(open + 2 extend) in the local mode; the other modes add
/// [`narrow_subjects`]).
pub(crate) fn fits_16_bits(scoring: &Scoring) -> bool {
    let worst = scoring.gaps.open as i64 + 2 * scoring.gaps.extend as i64;
    // scan_team's global lanes add 2 extend to every score (profile::shifted).
    let shift = if scoring.mode == Mode::Global { 2 * scoring.gaps.extend as i64 } else { 0 };
    let top = scoring.max_score() as i64 + shift;
    worst < 8192 && top < 8192 && scoring.min_score() > -8192
}

/// The longest subject whose cells, against a query of `m` residues, cannot fall out of
/// `kind`'s 16 bits at the bottom (`usize::MAX`: any). Any in the local mode (H >= 0)
/// and in `scan_team`'s shifted global lanes ([`profile::shifted`]: every all-gaps path
/// is -open or -2 open there). Otherwise every H is at least an all-gaps path,
/// -(2 open + (i + j) extend) in global (`scan_inter`: the subject's columns count),
/// -(open + i extend) in glocal; E and F one gap open lower and a diagonal candidate
/// `min(S)` lower, and in glocal a cell of `scan_team`'s drain
/// [`profile::drain_score`] lower: all must stay above -32768. The pairs past it are
/// recomputed at 32 bits.
pub(crate) fn narrow_subjects(kind: ScanKernel, scoring: &Scoring, m: usize) -> usize {
    if scoring.mode == Mode::Local || profile::shifted(kind, scoring) {
        return usize::MAX;
    }
    let (open, ext) = (scoring.gaps.open as i64, scoring.gaps.extend.max(1) as i64);
    let room = 32_500 - 3 * open - (m as i64 + 2) * ext + scoring.min_score().min(0) as i64;
    match scoring.mode {
        Mode::Global => usize::try_from(room / ext).unwrap_or(0),
        _ if room + profile::drain_score(scoring) as i64 > 0 => usize::MAX,
        _ => 0,
    }
}

/// What a scan kernel reports for a pair whose narrow lanes may have saturated:
/// cl/clsw_common.h's `CLSW_SATURATED` (any other value is a score, negative ones
/// included in the global and glocal modes).
pub(crate) const SATURATED: i32 = i32::MIN;

/// The kernels' build option `MODE` (cl/clsw_common.h).
pub(crate) fn mode_define(mode: Mode) -> (&'static str, String) {
    let code = match mode {
        Mode::Local => 0,
        Mode::Global => 1,
        Mode::Glocal => 2,
    };
    ("MODE", code.to_string())
}

/// Scores of a 16-bit profile: every value narrowed exactly, or an error (a scoring
/// that does not fit 16 bits must have been sent to a 32-bit path first).
pub(crate) fn narrow_scores(scores: &[i32]) -> Result<Vec<i16>> {
    let mut narrow = crate::memory::vec_with_capacity("a query profile of 16-bit scores", scores.len())?;
    for &v in scores {
        narrow.push(
            i16::try_from(v)
                .map_err(|_| crate::Error::InvalidArgument("a score beyond 16 bits reached a 16-bit kernel".into()))?,
        );
    }
    Ok(narrow)
}

/// The longest query or subject the OpenCL kernels take: they hold positions and
/// padded lengths in `int` (and index with 64-bit products), so a length must leave
/// room below `i32::MAX` for padding to whole bands and tiles.
pub const KERNEL_MAX_LENGTH: usize = i32::MAX as usize - (1 << 16);

/// Refuses a query or subjects longer than [`KERNEL_MAX_LENGTH`] before any work on a
/// device, naming which.
pub(crate) fn check_kernel_lengths(query: usize, subjects: impl IntoIterator<Item = usize>) -> Result<()> {
    let too_long = |what: String, len: usize| {
        crate::Error::InvalidArgument(format!(
            "{what} of {len} residues is longer than the OpenCL kernels take ({KERNEL_MAX_LENGTH}); use the native path"
        ))
    };
    if query > KERNEL_MAX_LENGTH {
        return Err(too_long("a query".into(), query));
    }
    match subjects.into_iter().enumerate().find(|&(_, n)| n > KERNEL_MAX_LENGTH) {
        Some((k, n)) => Err(too_long(format!("subject {}", k + 1), n)),
        None => Ok(()),
    }
}

/// Subjects packed for the device: residues back to back, with each subject's offset
/// and length.
#[derive(Debug, Clone, Default)]
pub struct PackedSubjects {
    pub residues: Vec<u8>,
    pub offsets: Vec<u32>,
    pub lengths: Vec<u32>,
}

impl PackedSubjects {
    /// Packs encoded subjects; fails when the total exceeds 4 G residues.
    pub fn new<S: AsRef<[u8]>>(subjects: &[S]) -> crate::Result<PackedSubjects> {
        let mut p = PackedSubjects::default();
        for s in subjects {
            let s = s.as_ref();
            let offset = u32::try_from(p.residues.len())
                .ok()
                .filter(|o| o.checked_add(s.len() as u32).is_some() && s.len() <= u32::MAX as usize)
                .ok_or_else(|| crate::Error::InvalidArgument("more than 4 G residues in one batch".into()))?;
            p.offsets.push(offset);
            p.lengths.push(s.len() as u32);
            p.residues.extend_from_slice(s);
        }
        Ok(p)
    }

    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_join_in_order_with_their_counts_summed() {
        let part = |from: i32, n: i32, recomputed: usize| ScanOutput {
            scores: (from..from + n).map(|s| LocalScore { score: s, end: Some((s as usize, 1)) }).collect(),
            recomputed,
            kernel_seconds: 0.5,
        };
        let joined = ScanOutput::concat(vec![
            part(0, 70_000, 1),
            part(70_000, 0, 0),
            part(70_000, 3, 2),
            part(70_003, 40_000, 4),
        ]);
        assert_eq!(joined.scores.len(), 110_003);
        assert!(joined.scores.iter().enumerate().all(|(k, s)| s.score == k as i32 && s.end == Some((k, 1))));
        assert_eq!((joined.recomputed, joined.kernel_seconds), (7, 2.0));
        assert!(ScanOutput::concat(Vec::new()).scores.is_empty());
        assert_eq!(ScanOutput::concat(vec![part(5, 2, 0)]).scores.len(), 2);
    }

    #[test]
    fn lengths_past_the_kernels_int_are_refused() {
        assert!(check_kernel_lengths(KERNEL_MAX_LENGTH, [1, KERNEL_MAX_LENGTH]).is_ok());
        let msg = check_kernel_lengths(KERNEL_MAX_LENGTH + 1, []).unwrap_err().to_string();
        assert!(msg.contains("a query of 2147418112 residues is longer than the OpenCL kernels take"), "{msg}");
        let msg = check_kernel_lengths(5, [1, usize::MAX]).unwrap_err().to_string();
        assert!(msg.contains("subject 2 of"), "{msg}");
    }

    #[test]
    fn a_variant_choice_is_a_name_or_auto() {
        assert_eq!(Variant::choice(AUTO).unwrap(), None);
        assert_eq!(Variant::choice("team").unwrap(), Some(Variant::Team));
        assert!(Variant::choice("teams").is_err());
        assert_eq!(Variant::choice("fast").unwrap(), None, "retired: each device's own for one release");
    }

    #[test]
    fn narrow_scores_refuse_what_does_not_fit() {
        assert_eq!(narrow_scores(&[-32768, 0, 32767]).unwrap(), vec![-32768, 0, 32767]);
        assert!(narrow_scores(&[40_000]).is_err());
    }
}
