//! A query's E-value statistics: where they come from ([`StatsMethod`],
//! [`EvalueSource`]) and the models fitted to its scores ([`Statistician`]).
//!
//! The fits to the database read a sample of the query's scores ([`FitSample`]: every
//! subject, every k-th beyond [`FIT_SAMPLE`]), not the scores themselves, so that a
//! search whose scores lie on several ranks of an MPI job ([`crate::mpi`]) gathers the
//! sample alone and fits exactly what one process would.

use super::Strand;
use crate::Result;
use crate::error::Error;
use crate::psse::shuffle::shuffled;
use crate::reference::LocalScore;
use crate::scan::native::{self, Report};
use crate::scoring::{Mode, Scoring};
use crate::seq::Database;
use crate::stats::normal::{NormalFit, NormalMethod, fit_search, length_window};
use crate::stats::{
    BlastParameters, KarlinAltschul, MIN_FIT_SCORES, Regression, Ungapped, fit_length_corrected, fit_regression,
};
use rayon::prelude::*;
use std::sync::OnceLock;

crate::error::named_enum! {
    /// Where a search's E-values come from (see the module documentation).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum EvalueSource ("E-value source", "sources") {
        /// Fitted to this query's own scores against the database.
        Fitted = "fitted",
        /// NCBI BLAST's published parameters for the matrix and gap costs.
        Published = "published",
        /// None available: E-values and bit scores are NaN.
        None = "none",
        /// ssearch36's regression of this query's scores on the subject length.
        Regression = "regression",
        /// Fitted to this query's scores against shuffled database subjects.
        Shuffled = "shuffled",
        /// A normal distribution fitted to this query's global or glocal scores, as
        /// ggsearch36 and glsearch36 fit theirs ([`crate::stats::normal`]).
        Normal = "normal",
    }
}

crate::error::named_enum! {
    /// Where a search may take its E-values from ([`super::SearchOptions::stats`]).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum StatsMethod ("statistics method", "methods") {
        /// ssearch36's regression (else the maximum-likelihood fit) on a database of
        /// [`BLEND_TO`] subjects or more; BLAST's published parameters (else the fit
        /// to shuffled subjects) below [`BLEND_FROM`]; the two blended in between: the
        /// default.
        Auto = "auto",
        /// Only the fit: no E-values where it fails.
        Fit = "fit",
        /// Only BLAST's published parameters for the matrix and gap costs: no E-values
        /// where BLAST publishes none. They do not depend on the database, so with a
        /// fixed `db_size` a hit's E-value does not either.
        Published = "published",
        /// No E-values (nor bit scores).
        None = "none",
        /// ssearch36's default (its `-z 1`): the mean and variance of the scores
        /// regressed on the logarithm of the subject length ([`crate::stats::regression`]).
        Regression = "regression",
        /// The length-corrected fit to the query's scores against shuffles of database
        /// subjects ([`SHUFFLES`] of them, made by psse's generator): statistics for a
        /// database of any size, as ssearch36's shuffles of library sequences.
        Shuffle = "shuffle",
    }
}

/// The statistics of one query's search.
#[derive(Debug, Clone)]
pub struct Statistics {
    pub source: EvalueSource,
    /// `(lambda, K)`, present when `source` is `Fitted`, `Published` or `Shuffled`.
    pub params: Option<KarlinAltschul>,
    /// BLAST's parameters (its finite-size correction), present when `source` is
    /// `Published`.
    pub blast: Option<BlastParameters>,
    /// The regression, present when `source` is `Regression`.
    pub regression: Option<Regression>,
    /// The normal fit, present when `source` is `Normal`.
    pub normal: Option<NormalFit>,
    /// Why a source the method prefers was not used (its error), if one was not.
    pub note: Option<String>,
    /// Number of sequences in the database (`D` of the E-value), or the search's
    /// `db_size` where it gives one.
    pub db_sequences: usize,
    /// Residues in the database (BLAST's `D`: a published E-value is the pair's times
    /// `D / n`); `None` where the search's `db_size` fixes the number of subjects
    /// instead (the pair's times `db_sequences`).
    pub db_residues: Option<f64>,
    /// Strands searched: a published E-value counts each.
    pub strands: usize,
    /// The automatic statistics of a database of [`BLEND_FROM`] to [`BLEND_TO`]
    /// subjects: this model's E-values and bit scores blended with another's.
    pub blend: Option<Blend>,
}

/// A model blended with a prior one ([`Statistics::blend`]): E-values are
/// `E^weight * E_prior^(1 - weight)`, bit scores the same mean of the two.
#[derive(Debug, Clone)]
pub struct Blend {
    pub prior: Box<Statistics>,
    /// The weight of the blending model (0 to 1).
    pub weight: f64,
}

/// [`StatsMethod::Auto`] takes its E-values from a fit to the query's scores against
/// a database of at least [`BLEND_TO`] subjects, and from the scores' prior model
/// (BLAST's published parameters, else shuffles) below [`BLEND_FROM`]; in between, the
/// two are blended with the fit's weight growing with the logarithm of the subjects'
/// number, so that adding one subject never switches the model. 500 is where
/// ssearch36 starts to fit its library's own scores instead of shuffles.
pub const BLEND_FROM: usize = 100;
pub const BLEND_TO: usize = 500;

/// The fit's weight among `subjects` scores ([`BLEND_FROM`], [`BLEND_TO`]).
fn fit_weight(subjects: usize) -> f64 {
    let ln = |n: usize| (n.max(1) as f64).ln();
    ((ln(subjects) - ln(BLEND_FROM)) / (ln(BLEND_TO) - ln(BLEND_FROM))).clamp(0.0, 1.0)
}

impl Statistics {
    /// The E-value of a raw score for a subject of `subject_len` (NaN without statistics).
    pub fn evalue(&self, score: i32, query_len: usize, subject_len: usize) -> f64 {
        let own = self.own_evalue(score, query_len, subject_len);
        match &self.blend {
            Some(b) => {
                let prior = b.prior.evalue(score, query_len, subject_len);
                (b.weight * own.ln() + (1.0 - b.weight) * prior.ln()).exp()
            }
            None => own,
        }
    }

    /// The E-value under this model alone.
    fn own_evalue(&self, score: i32, query_len: usize, subject_len: usize) -> f64 {
        if let Some(n) = self.normal {
            return n.evalue(score, self.db_sequences);
        }
        if let Some(r) = self.regression {
            return r.evalue(score as f64, subject_len, self.db_sequences);
        }
        if let Some(b) = self.blast {
            // Each strand is a search of its own, as BLAST counts them.
            let subjects = self.db_residues.map_or(self.db_sequences as f64, |d| d / subject_len.max(1) as f64);
            return self.strands as f64 * subjects * b.pair_evalue(score as f64, query_len, subject_len);
        }
        let Some(ka) = self.params else { return f64::NAN };
        ka.evalue(score as f64, query_len.max(1), subject_len.max(1), self.db_sequences)
    }

    /// The bit score of a raw score (NaN without statistics).
    pub fn bit_score(&self, score: i32, query_len: usize, subject_len: usize) -> f64 {
        let own = self.own_bit_score(score, query_len, subject_len);
        match &self.blend {
            Some(b) => b.weight * own + (1.0 - b.weight) * b.prior.bit_score(score, query_len, subject_len),
            None => own,
        }
    }

    /// The bit score under this model alone.
    fn own_bit_score(&self, score: i32, query_len: usize, subject_len: usize) -> f64 {
        if let Some(n) = self.normal {
            return n.bit_score(score, query_len, subject_len);
        }
        match (self.regression, self.params) {
            (Some(r), _) => r.bit_score(score as f64, query_len, subject_len),
            (None, Some(ka)) => ka.bit_score(score as f64),
            (None, None) => f64::NAN,
        }
    }
}

/// The fit uses at most this many subjects' scores: every k-th subject in database
/// order beyond it (deterministic). 20,000 scores pin lambda to about 1%
/// ([`fit_length_corrected`]'s table) and keep the fit to milliseconds per query on
/// databases of millions of sequences; E-values still count every subject.
pub const FIT_SAMPLE: usize = 20_000;

/// The normal fit of the global and glocal modes uses at most this many scores of the
/// query's length window (FASTA's `MAX_STATS`, where ggsearch36 samples at random):
/// every k-th subject of the window in database order beyond it.
pub const NORMAL_SAMPLE: usize = 60_000;

/// The subjects a query's fit samples: those of its length window (every subject in
/// the local mode), every `stride`-th in database order.
pub(crate) struct Sampling {
    window: std::ops::RangeInclusive<usize>,
    stride: usize,
    /// The subjects of the window (all of the database's in the local mode).
    pub(crate) subjects: usize,
}

impl Sampling {
    /// Whether subject `k`, of `length` residues, is in the sample (never an empty one).
    pub(crate) fn contains(&self, k: usize, length: usize) -> bool {
        k.is_multiple_of(self.stride) && length > 0 && self.window.contains(&length)
    }
}

/// [`StatsMethod::Shuffle`] scores the query against this many shuffled subjects:
/// database subjects sampled every k-th in database order (all of a database this
/// small), each shuffled as often as it takes. 2,000 scores pin lambda to about 2%
/// ([`fit_length_corrected`]'s table).
pub const SHUFFLES: usize = 2_000;

/// At most this many residues of shuffles (fewer shuffles of long subjects): every
/// query is scored against them on the CPU, about a query length x 10 M cells.
const SHUFFLE_RESIDUES: usize = 10_000_000;

/// The shuffles' seed (psse's default): the same database gives the same shuffles, and
/// so the same E-values, in every run.
const SHUFFLE_SEED: u64 = 42;

/// The scores a fit to the database uses and their subjects' lengths, in database order.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct FitSample {
    pub(crate) scores: Vec<i32>,
    pub(crate) lengths: Vec<usize>,
    /// The subjects it was sampled from ([`Sampling::subjects`]).
    pub(crate) subjects: usize,
}

/// The statistics of one database's searches: the method, the database (its size, its
/// subjects' lengths, and the subjects the shuffle statistics shuffle), made once.
pub(crate) struct Statistician<'a> {
    db: &'a Database,
    scoring: Scoring,
    /// The matrix's ungapped parameters: the regression's score cap.
    ungapped: Ungapped,
    method: StatsMethod,
    db_size: Option<usize>,
    strands: Vec<Strand>,
    /// The shuffled subjects of the shuffle statistics, made for the first query that
    /// needs them (or why there are none).
    shuffles: OnceLock<std::result::Result<Vec<Vec<u8>>, String>>,
}

/// One source's model of a query's scores.
enum Model {
    KarlinAltschul(KarlinAltschul),
    Blast(BlastParameters),
    Regression(Regression),
    Normal(NormalFit),
    None,
}

impl<'a> Statistician<'a> {
    pub(crate) fn new(db: &'a Database, scoring: Scoring, options: &super::SearchOptions, strands: &[Strand]) -> Self {
        Statistician {
            db,
            ungapped: Ungapped::of(&scoring.matrix),
            scoring,
            method: options.stats,
            db_size: options.db_size,
            strands: strands.to_vec(),
            shuffles: OnceLock::new(),
        }
    }

    /// The statistics of one query's scores. A method of one source is that source's
    /// model or none; [`StatsMethod::Auto`] is the fit (the regression, else the
    /// maximum-likelihood fit) and the prior (BLAST's published parameters, else the
    /// fit to shuffles) blended by the sample's size ([`BLEND_FROM`]); the failures are
    /// the note. `plus` is the query, `minus` its reverse complement when that strand
    /// is searched (else empty).
    pub(crate) fn statistics(&self, sample: &FitSample, plus: &[u8], minus: &[u8]) -> Statistics {
        use EvalueSource as S;
        let mut failed: Vec<String> = Vec::new();
        let mut first = |sources: &[EvalueSource]| -> Statistics {
            for &source in sources {
                match self.model(source, sample, plus, minus) {
                    Ok(model) => return self.with_model(source, model),
                    Err(why) => failed.push(why),
                }
            }
            self.with_model(S::None, Model::None)
        };
        let mut statistics = match self.method {
            // The global and glocal modes: FASTA's normal fit (SearchPlan refuses the
            // local methods there).
            StatsMethod::Auto | StatsMethod::Fit if self.scoring.mode != Mode::Local => first(&[S::Normal]),
            StatsMethod::Auto => {
                let weight = fit_weight(sample.scores.len());
                let fit = if weight > 0.0 { first(&[S::Regression, S::Fitted]) } else { first(&[]) };
                if weight >= 1.0 && fit.source != S::None {
                    fit
                } else {
                    let prior = first(&[S::Published, S::Shuffled]);
                    match (fit.source, prior.source) {
                        (S::None, _) => prior,
                        (_, S::None) => fit,
                        _ => Statistics { blend: Some(Blend { prior: Box::new(prior), weight }), ..fit },
                    }
                }
            }
            StatsMethod::Fit => first(&[S::Fitted]),
            StatsMethod::Published => first(&[S::Published]),
            StatsMethod::Regression => first(&[S::Regression]),
            StatsMethod::Shuffle => first(&[S::Shuffled]),
            StatsMethod::None => first(&[]),
        };
        if self.method == StatsMethod::None {
            failed.push("E-values turned off (statistics method none)".into());
        }
        statistics.note = (!failed.is_empty()).then(|| failed.join("; "));
        if self.scoring.mode != Mode::Local && self.db_size.is_none() {
            // The subjects in the query's length window are the database E counts.
            statistics.db_sequences = sample.subjects;
        }
        statistics
    }

    /// The statistics of one model (none: `source` [`EvalueSource::None`]).
    fn with_model(&self, source: EvalueSource, model: Model) -> Statistics {
        let mut statistics = Statistics {
            source,
            params: None,
            blast: None,
            regression: None,
            normal: None,
            note: None,
            db_sequences: self.db_size.unwrap_or(self.db.len()),
            db_residues: self.db_size.is_none().then(|| self.db.total_residues() as f64),
            strands: self.strands.len(),
            blend: None,
        };
        match model {
            Model::KarlinAltschul(ka) => statistics.params = Some(ka),
            Model::Blast(b) => {
                statistics.params = Some(b.karlin_altschul());
                statistics.blast = Some(b);
            }
            Model::Regression(r) => statistics.regression = Some(r),
            Model::Normal(n) => statistics.normal = Some(n),
            Model::None => {}
        }
        statistics
    }

    /// One source's model, or why it gives none.
    fn model(
        &self,
        source: EvalueSource,
        sample: &FitSample,
        plus: &[u8],
        minus: &[u8],
    ) -> std::result::Result<Model, String> {
        let text = |e: Error| match e {
            Error::InvalidArgument(m) => m,
            e => e.to_string(),
        };
        match source {
            EvalueSource::Fitted => fit_length_corrected(&sample.scores, &sample.lengths, plus.len())
                .map(Model::KarlinAltschul)
                .map_err(text),
            EvalueSource::Regression => fit_regression(&sample.scores, &sample.lengths, plus.len(), self.ungapped)
                .map(Model::Regression)
                .map_err(text),
            EvalueSource::Published => {
                let (matrix, gaps) = (self.scoring.matrix.name(), self.scoring.gaps);
                BlastParameters::published(matrix, gaps.open, gaps.extend)
                    .map(Model::Blast)
                    .ok_or_else(|| format!("BLAST publishes no parameters for {matrix} {}/{}", gaps.open, gaps.extend))
            }
            EvalueSource::Shuffled => self.shuffled_fit(plus, minus).map(Model::KarlinAltschul).map_err(text),
            // The sample holds the query's length window alone (Self::sampling). FASTA's
            // choice: the mean and variance, or with fewer than ten scores the median
            // and interquartile range (process_hist).
            EvalueSource::Normal => fit_search(&sample.scores, NormalMethod::MeanVariance)
                .map(Model::Normal)
                .map_err(|e| format!("normal fit: {}", text(e))),
            EvalueSource::None => Err("no statistics".into()),
        }
    }

    /// Which subjects a query of `query_len` residues fits ([`Sampling::contains`]).
    pub(crate) fn sampling(&self, query_len: usize) -> Sampling {
        let window = length_window(query_len, self.scoring.mode);
        let (candidates, most) = match self.scoring.mode {
            Mode::Local => (self.db.len(), FIT_SAMPLE),
            _ => ((0..self.db.len()).filter(|&k| window.contains(&self.db.seq_len(k))).count(), NORMAL_SAMPLE),
        };
        Sampling { window, stride: candidates.div_ceil(most).max(1), subjects: candidates }
    }

    /// The fit's sample of `scores` (every subject's, in database order) for a query of
    /// `query_len` residues: what [`Self::statistics`] needs of its scores.
    pub(crate) fn sample(&self, scores: &[LocalScore], query_len: usize) -> FitSample {
        let sampling = self.sampling(query_len);
        // On every core, in database order (a database of 20 G residues holds 44 M).
        let (scores, lengths) = (0..scores.len())
            .into_par_iter()
            .filter(|&k| sampling.contains(k, self.db.seq_len(k)))
            .map(|k| (scores[k].score, self.db.seq_len(k)))
            .unzip();
        FitSample { scores, lengths, subjects: sampling.subjects }
    }

    /// The length-corrected fit to the query's scores against [`SHUFFLES`] shuffled
    /// database subjects ([`Self::shuffles`]), scored on the CPU on the strands
    /// searched: with both, each shuffle's score is the better of the two, as a
    /// subject's is.
    fn shuffled_fit(&self, plus: &[u8], minus: &[u8]) -> Result<KarlinAltschul> {
        let shuffles = self
            .shuffles
            .get_or_init(|| self.make_shuffles())
            .as_ref()
            .map_err(|m| Error::InvalidArgument(m.clone()))?;
        let lengths: Vec<usize> = shuffles.iter().map(Vec::len).collect();
        let mut best = vec![0; shuffles.len()];
        for strand in &self.strands {
            let query = if *strand == Strand::Plus { plus } else { minus };
            let scores = native::scores(query, shuffles, &self.scoring, Report::Scores)?.scores;
            best.iter_mut().zip(&scores).for_each(|(b, s)| *b = (*b).max(s.score));
        }
        fit_length_corrected(&best, &lengths, plus.len())
    }

    /// The shuffles every query of a search is scored against, made once: psse's uniform
    /// shuffles under a fixed seed, keyed by the subject's index in the database, of
    /// subjects sampled every k-th; or why there cannot be the fit's 200 of them.
    fn make_shuffles(&self) -> std::result::Result<Vec<Vec<u8>>, String> {
        let positive = || (0..self.db.len()).filter(|&k| self.db.seq_len(k) > 0);
        let stride = positive().count().div_ceil(SHUFFLES).max(1);
        let sample: Vec<usize> = positive().step_by(stride).collect();
        let residues: usize = sample.iter().map(|&k| self.db.seq_len(k)).sum();
        let each = SHUFFLES.div_ceil(sample.len().max(1)).min(SHUFFLE_RESIDUES / residues.max(1));
        if sample.len() * each < MIN_FIT_SCORES {
            return Err(format!(
                "shuffles: {} sampled subjects of {residues} residues allow {} shuffles within the {SHUFFLE_RESIDUES} \
                 residues a search's shuffles may hold; the fit needs {MIN_FIT_SCORES}",
                sample.len(),
                sample.len() * each
            ));
        }
        // Subject indices key the generator as psse's do (32 bits: wrapping beyond).
        // Made on one thread: inside `OnceLock::get_or_init`, a rayon loop would let
        // this thread take up another query's work, which would wait on the same lock.
        Ok(sample
            .iter()
            .flat_map(|&k| (0..each as u32).map(move |i| shuffled(self.db.residues(k), SHUFFLE_SEED, k as u32, i, 0)))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_evalues_count_the_strands_and_missing_ones_are_nan() {
        let blast = BlastParameters::published("BLOSUM62", 11, 1);
        let one = Statistics {
            source: EvalueSource::Published,
            params: blast.map(|b| b.karlin_altschul()),
            blast,
            regression: None,
            normal: None,
            note: None,
            db_sequences: 1000,
            db_residues: Some(300_000.0),
            strands: 1,
            blend: None,
        };
        let two = Statistics { strands: 2, ..one.clone() };
        let (e1, e2) = (one.evalue(60, 300, 300), two.evalue(60, 300, 300));
        assert!((e2 / e1 - 2.0).abs() < 1e-12, "{e1} {e2}");
        let none = Statistics { source: EvalueSource::None, params: None, blast: None, ..one };
        assert!(none.evalue(60, 300, 300).is_nan() && none.bit_score(60, 300, 300).is_nan());
    }
}
