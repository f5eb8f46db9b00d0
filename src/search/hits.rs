//! A query's results: E-value statistics, the choice of hits and their alignments.

use super::{Scanned, Searcher, Strand, reverse_complement};
use crate::align::Alignment;
use crate::engine::WorkerRef;
use crate::error::{Error, Result};
use crate::psse::shuffle::shuffled;
use crate::reference::{self, LocalScore};
use crate::scan::from_end::{HitEnd, align_from_ends};
use crate::scan::native::{self, Report};
use crate::scoring::Scoring;
use crate::seq::Sequence;
use crate::stats::{KarlinAltschul, MIN_FIT_SCORES, Regression, fit_length_corrected, fit_regression, published};
use rayon::prelude::*;
use std::collections::HashMap;
use std::time::Instant;

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
    }
}

crate::error::named_enum! {
    /// Where a search may take its E-values from ([`super::SearchOptions::stats`]).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum StatsMethod ("statistics method", "methods") {
        /// The fit to the query's scores against the database when it succeeds (it
        /// needs 200 positive scores), else BLAST's published parameters, else the fit
        /// to shuffled subjects (a small DNA database): the default.
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
    /// The regression, present when `source` is `Regression`.
    pub regression: Option<Regression>,
    /// Why the preferred source was not used (the fit's error), if it was not.
    pub note: Option<String>,
    /// Number of sequences in the database (`D` of the E-value), or the search's
    /// `db_size` where it gives one.
    pub db_sequences: usize,
    /// Strands searched: a published P-value is combined over them.
    pub strands: usize,
}

impl Statistics {
    /// The E-value of a raw score for a subject of `subject_len` (NaN without statistics).
    pub fn evalue(&self, score: i32, query_len: usize, subject_len: usize) -> f64 {
        if let Some(r) = self.regression {
            return r.evalue(score as f64, subject_len, self.db_sequences);
        }
        let Some(ka) = self.params else { return f64::NAN };
        let (m, n) = (query_len.max(1), subject_len.max(1));
        let d = self.db_sequences as f64;
        match self.source {
            EvalueSource::Published if self.strands > 1 => {
                let p = ka.pvalue(score as f64, m, n);
                // 1 - (1 - p)^s without cancellation for tiny p.
                d * -(self.strands as f64 * (-p).ln_1p()).exp_m1()
            }
            _ => ka.evalue(score as f64, m, n, self.db_sequences),
        }
    }

    /// The bit score of a raw score (NaN without statistics).
    pub fn bit_score(&self, score: i32, query_len: usize, subject_len: usize) -> f64 {
        match (self.regression, self.params) {
            (Some(r), _) => r.bit_score(score as f64, query_len, subject_len),
            (None, Some(ka)) => ka.bit_score(score as f64),
            (None, None) => f64::NAN,
        }
    }
}

/// One reported subject.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The subject's index in database order.
    pub subject: usize,
    pub score: i32,
    pub strand: Strand,
    /// NaN when the search has no statistics.
    pub evalue: f64,
    /// NaN when the search has no statistics.
    pub bit_score: f64,
    /// The alignment of the query (reverse-complemented for [`Strand::Minus`]) with the
    /// subject; `None` when [`super::SearchOptions::alignments`] is off.
    pub alignment: Option<Alignment>,
}

/// What a search of one query returns.
#[derive(Debug, Clone)]
pub struct SearchResult {
    /// The query's position in the list given to [`Searcher::search_all`].
    pub query_index: usize,
    pub query_id: String,
    pub query_description: String,
    pub query_len: usize,
    /// Every subject's best score (over the strands searched), database order, with its
    /// end cell where the kernel reports one: the default `team` kernel and the native
    /// CPU path score only (`end` is `None`); a hit's end is its alignment's.
    pub scores: Vec<LocalScore>,
    /// The strand of each subject's score.
    pub strands: Vec<Strand>,
    /// The strands that were searched.
    pub strands_searched: Vec<Strand>,
    /// Subjects recomputed at 32 bits after their 16-bit score saturated (all strands).
    pub recomputed: usize,
    /// Kernel time on the devices, from profiling events, summed over devices.
    pub kernel_seconds: f64,
    /// True when a device gives no profiling times (Mesa's rusticl gives zeros): its
    /// part of `kernel_seconds` is then the host clock around its scan.
    pub kernel_seconds_from_host: bool,
    /// Host time of the device scan (for queries scanned together against a batched
    /// database: the chunk's time divided by its queries).
    pub scan_seconds: f64,
    /// Scan plus statistics, hit selection and alignments.
    pub wall_seconds: f64,
    /// Dynamic-programming cells computed by the scan: query length x database
    /// residues x strands.
    pub cells: u64,
    pub statistics: Statistics,
    /// The reported hits, best first.
    pub hits: Vec<Hit>,
}

/// The alignments of hits of one query: each its optimal local alignment, scoring
/// `score` and ending at `end` (0-based query and subject positions, from the scan):
/// [`reference::align`]'s alignment, traced back from the end cell over the rectangle
/// that must hold it, 16 hits at a time ([`align_from_ends`]), so the score pass over
/// the matrix is not repeated and the rows and columns outside the alignment's reach
/// are never computed. A hit whose end is unknown (outside the pair) is aligned whole.
pub fn align_hits(query: &[u8], hits: &[HitEnd<'_>], scoring: &Scoring) -> Result<Vec<Option<Alignment>>> {
    let (known, unknown): (Vec<usize>, Vec<usize>) =
        (0..hits.len()).partition(|&k| hits[k].end.0 < query.len() && hits[k].end.1 < hits[k].subject.len());
    let chosen: Vec<HitEnd<'_>> = known.iter().map(|&k| hits[k]).collect();
    let mut out: Vec<Option<Alignment>> = vec![None; hits.len()];
    for (&k, a) in known.iter().zip(align_from_ends(query, &chosen, scoring)?) {
        out[k] = a;
    }
    let whole: Vec<Option<Alignment>> =
        unknown.par_iter().map(|&k| reference::align(query, hits[k].subject, scoring)).collect();
    for (&k, a) in unknown.iter().zip(whole) {
        out[k] = a;
    }
    Ok(out)
}

/// The fit uses at most this many subjects' scores: every k-th subject in database
/// order beyond it (deterministic). 20,000 scores pin lambda to about 1%
/// ([`fit_length_corrected`]'s table) and keep the fit to milliseconds per query on
/// databases of millions of sequences; E-values still count every subject.
pub const FIT_SAMPLE: usize = 20_000;

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

/// One source's model of a query's scores.
enum Model {
    KarlinAltschul(KarlinAltschul),
    Regression(Regression),
}

impl Searcher<'_> {
    /// The statistics of one query's scores: the sources of the search's method in
    /// order, the first that succeeds; the failures before it are the note. `plus` is
    /// the query, `minus` its reverse complement when that strand is searched (else
    /// empty).
    fn statistics(&self, scores: &[LocalScore], plus: &[u8], minus: &[u8]) -> Statistics {
        use EvalueSource as S;
        let order: &[EvalueSource] = match self.options.stats {
            StatsMethod::Auto => &[S::Fitted, S::Published, S::Shuffled],
            StatsMethod::Fit => &[S::Fitted],
            StatsMethod::Published => &[S::Published],
            StatsMethod::Regression => &[S::Regression],
            StatsMethod::Shuffle => &[S::Shuffled],
            StatsMethod::None => &[],
        };
        let mut failed: Vec<String> = Vec::new();
        let mut statistics = Statistics {
            source: S::None,
            params: None,
            regression: None,
            note: None,
            db_sequences: self.options.db_size.unwrap_or(self.db.len()),
            strands: self.strands.len(),
        };
        for &source in order {
            match self.model(source, scores, plus, minus) {
                Ok(Model::KarlinAltschul(ka)) => statistics.params = Some(ka),
                Ok(Model::Regression(r)) => statistics.regression = Some(r),
                Err(why) => {
                    failed.push(why);
                    continue;
                }
            }
            statistics.source = source;
            break;
        }
        if order.is_empty() {
            failed.push("E-values turned off (statistics method none)".into());
        }
        statistics.note = (!failed.is_empty()).then(|| failed.join("; "));
        statistics
    }

    /// One source's model, or why it gives none.
    fn model(
        &self,
        source: EvalueSource,
        scores: &[LocalScore],
        plus: &[u8],
        minus: &[u8],
    ) -> std::result::Result<Model, String> {
        let text = |e: Error| match e {
            Error::InvalidArgument(m) => m,
            e => e.to_string(),
        };
        match source {
            EvalueSource::Fitted => {
                let (s, n) = self.fit_sample(scores);
                fit_length_corrected(&s, &n, plus.len()).map(Model::KarlinAltschul).map_err(text)
            }
            EvalueSource::Regression => {
                let (s, n) = self.fit_sample(scores);
                fit_regression(&s, &n).map(Model::Regression).map_err(text)
            }
            EvalueSource::Published => {
                let (matrix, gaps) = (self.scoring.matrix.name(), self.scoring.gaps);
                published(matrix, gaps.open, gaps.extend)
                    .map(Model::KarlinAltschul)
                    .ok_or_else(|| format!("BLAST publishes no parameters for {matrix} {}/{}", gaps.open, gaps.extend))
            }
            EvalueSource::Shuffled => self.shuffled_fit(plus, minus).map(Model::KarlinAltschul).map_err(text),
            EvalueSource::None => Err("no statistics".into()),
        }
    }

    /// The scores a fit to the database uses, with their subjects' lengths: every
    /// subject of a positive length, every k-th beyond [`FIT_SAMPLE`].
    fn fit_sample(&self, scores: &[LocalScore]) -> (Vec<i32>, Vec<usize>) {
        let stride = scores.len().div_ceil(FIT_SAMPLE).max(1);
        scores.iter().zip(&self.lengths).step_by(stride).filter(|(_, n)| **n > 0).map(|(s, &n)| (s.score, n)).unzip()
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
        let positive = || (0..self.db.len()).filter(|&k| self.lengths[k] > 0);
        let stride = positive().count().div_ceil(SHUFFLES).max(1);
        let sample: Vec<usize> = positive().step_by(stride).collect();
        let residues: usize = sample.iter().map(|&k| self.lengths[k]).sum();
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

    /// A hit's score is never taken from a device alone: the CPU scores the subject of
    /// every hit an OpenCL device reported again (the native SIMD path: its own optimum,
    /// not the device's end cell), and a device that reported another score is an error,
    /// not a wrong line of output. Hits the native path scored with their end are not
    /// scored twice; those its score-only kernels scored are, for their end (and a
    /// disagreement there is a bug of clsw's, [`Error::Internal`]).
    /// Returns, per subject of `subjects`, the end cell the CPU found (`None` where the
    /// scan gave one): where the hit's alignment starts.
    fn check_hit_scores(
        &self,
        plus: &[u8],
        minus: &[u8],
        scanned: &Scanned,
        subjects: &[usize],
    ) -> Result<Vec<Option<(usize, usize)>>> {
        let mut ends = vec![None; subjects.len()];
        for (strand, query) in [(Strand::Plus, plus), (Strand::Minus, minus)] {
            let mine: Vec<usize> = (0..subjects.len())
                .filter(|&i| {
                    let k = subjects[i];
                    scanned.strands[k] == strand && (self.on_device(k) || scanned.scores[k].end.is_none())
                })
                .collect();
            if mine.is_empty() {
                continue;
            }
            let residues: Vec<&[u8]> = mine.iter().map(|&i| self.db.residues(subjects[i])).collect();
            let known: Vec<i32> = mine.iter().map(|&i| scanned.scores[subjects[i]].score).collect();
            let cpu = crate::scan::native::rescore(query, &residues, &known, &self.scoring)?.scores;
            for (&i, c) in mine.iter().zip(&cpu) {
                let (k, score) = (subjects[i], scanned.scores[subjects[i]].score);
                if score != c.score {
                    let subject = format!("subject {} ('{}')", k + 1, self.db.id(k));
                    let strand = strand.name();
                    return Err(if self.on_device(k) {
                        Error::Device(format!(
                            "{subject}: the device's score {score} differs from the CPU's {} ({strand} strand): the \
                             device computes wrong; `clsw devices` runs its self-test",
                            c.score
                        ))
                    } else {
                        Error::Internal(format!(
                            "{subject}: the native CPU path's score-only kernel gave {score}, its kernel with ends {} \
                             ({strand} strand)",
                            c.score
                        ))
                    });
                }
                ends[i] = c.end;
            }
        }
        Ok(ends)
    }

    /// Whether subject `k` was scored on an OpenCL device (else on the native CPU path).
    fn on_device(&self, k: usize) -> bool {
        self.shares.iter().any(|s| s.range.contains(&k) && matches!(s.worker, WorkerRef::OpenCl(_)))
    }

    /// A hit whose scan score its alignment does not confirm: a device that computes
    /// wrong ([`Error::Device`]), or, for a subject the native CPU path scored, a bug
    /// in clsw ([`Error::Internal`]); `what` says what disagrees, after the subject.
    fn disagreement(&self, h: &Hit, what: String) -> Error {
        let subject = format!("subject {} ('{}')", h.subject + 1, self.db.id(h.subject));
        if self.on_device(h.subject) {
            Error::Device(format!("{subject}: the device's score {what}"))
        } else {
            Error::Internal(format!("{subject}: the native CPU path's score {what}"))
        }
    }

    /// The subjects' scores checked ([`Self::check_hit_scores`]) and, when alignments
    /// are on, their alignments (`None` where none scores above 0), by subject. A
    /// subject whose residues, strand and scan score equal an earlier one's is checked
    /// and aligned once, for both: the same pair gives the same score, end cell and
    /// alignment (a copy the device scored differently is checked on its own).
    fn check_and_align(
        &self,
        plus: &[u8],
        minus: &[u8],
        scanned: &Scanned,
        subjects: &[usize],
    ) -> Result<HashMap<usize, Option<Alignment>>> {
        let mut first_of: HashMap<(&[u8], Strand, i32), usize> = HashMap::new();
        let (mut distinct, mut copies) = (Vec::new(), Vec::new());
        for &k in subjects {
            match first_of.entry((self.db.residues(k), scanned.strands[k], scanned.scores[k].score)) {
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(k);
                    distinct.push(k);
                }
                std::collections::hash_map::Entry::Occupied(e) => copies.push((k, *e.get())),
            }
        }
        let mut aligned = self.check_and_align_distinct(plus, minus, scanned, &distinct)?;
        for (k, first) in copies {
            let a = aligned.get(&first).cloned().flatten();
            aligned.insert(k, a);
        }
        Ok(aligned)
    }

    /// [`Self::check_and_align`] of subjects taken one by one.
    fn check_and_align_distinct(
        &self,
        plus: &[u8],
        minus: &[u8],
        scanned: &Scanned,
        subjects: &[usize],
    ) -> Result<HashMap<usize, Option<Alignment>>> {
        let cpu_ends = self.check_hit_scores(plus, minus, scanned, subjects)?;
        let mut aligned: HashMap<usize, Option<Alignment>> = subjects.iter().map(|&k| (k, None)).collect();
        if self.options.alignments {
            for (strand, q) in [(Strand::Plus, plus), (Strand::Minus, minus)] {
                let mine: Vec<usize> =
                    (0..subjects.len()).filter(|&i| scanned.strands[subjects[i]] == strand).collect();
                let ends: Vec<HitEnd<'_>> = mine
                    .iter()
                    .map(|&i| {
                        let k = subjects[i];
                        HitEnd {
                            subject: self.db.residues(k),
                            end: scanned.scores[k].end.or(cpu_ends[i]).unwrap_or((usize::MAX, usize::MAX)),
                            score: scanned.scores[k].score,
                        }
                    })
                    .collect();
                for (&i, a) in mine.iter().zip(align_hits(q, &ends, &self.scoring)?) {
                    aligned.insert(subjects[i], a);
                }
            }
        }
        Ok(aligned)
    }

    /// Statistics, hit selection and alignments of one scanned query. The best-scoring
    /// subjects are checked and aligned while the statistics are fitted: the hits are
    /// the first `max_hits` of them that pass the E-value threshold, and the few that a
    /// failing one lets in from further down are aligned afterwards.
    pub(super) fn finish(&self, query: &Sequence, scanned: Scanned) -> Result<SearchResult> {
        let start = Instant::now();
        let m = query.residues.len();
        let scores = &scanned.scores;
        let max_hits = self.options.max_hits;
        let by_score = |&a: &usize, &b: &usize| scores[b].score.cmp(&scores[a].score).then(a.cmp(&b));
        // The first max_hits by score, selected (not every subject sorted).
        let mut first: Vec<usize> = (0..scores.len()).filter(|&k| scores[k].score > 0).collect();
        if first.len() > max_hits && max_hits > 0 {
            first.select_nth_unstable_by(max_hits - 1, by_score);
        }
        first.truncate(max_hits);
        let minus = if self.strands.contains(&Strand::Minus) { reverse_complement(&query.residues) } else { vec![] };
        let (statistics, early) = rayon::join(
            || self.statistics(scores, &query.residues, &minus),
            || self.check_and_align(&query.residues, &minus, &scanned, &first),
        );
        let mut aligned = early?;
        let threshold = self.options.evalue;
        let mut hits: Vec<Hit> = (0..scores.len())
            .filter(|&k| scores[k].score > 0)
            .filter_map(|k| {
                let evalue = statistics.evalue(scores[k].score, m, self.lengths[k]);
                (evalue.is_nan() || evalue <= threshold).then(|| Hit {
                    subject: k,
                    score: scores[k].score,
                    strand: scanned.strands[k],
                    evalue,
                    bit_score: statistics.bit_score(scores[k].score, m, self.lengths[k]),
                    alignment: None,
                })
            })
            .collect();
        // Ranked as BLAST and ssearch36 rank them: by E-value (length-corrected, so not
        // always the score's order), ties by score, then database order.
        hits.sort_by(|a, b| a.evalue.total_cmp(&b.evalue).then_with(|| by_score(&a.subject, &b.subject)));
        hits.truncate(max_hits);
        let later: Vec<usize> = hits.iter().map(|h| h.subject).filter(|k| !aligned.contains_key(k)).collect();
        aligned.extend(self.check_and_align(&query.residues, &minus, &scanned, &later)?);
        if self.options.alignments {
            for h in &mut hits {
                let a = aligned
                    .remove(&h.subject)
                    .flatten()
                    .ok_or_else(|| self.disagreement(h, format!("{} has no positive alignment", h.score)))?;
                if a.score != h.score {
                    return Err(self.disagreement(h, format!("{} differs from its alignment's {}", h.score, a.score)));
                }
                h.alignment = Some(a);
            }
        }
        let cells = m as u64 * self.db.total_residues() * self.strands.len() as u64;
        Ok(SearchResult {
            query_index: scanned.index,
            query_id: query.id.clone(),
            query_description: query.description.clone(),
            query_len: m,
            scores: scanned.scores,
            strands: scanned.strands,
            strands_searched: self.strands.clone(),
            recomputed: scanned.recomputed,
            kernel_seconds: scanned.kernel_seconds,
            kernel_seconds_from_host: scanned.kernel_seconds_from_host,
            scan_seconds: scanned.scan_seconds,
            wall_seconds: scanned.scan_seconds + start.elapsed().as_secs_f64(),
            cells,
            statistics,
            hits,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_evalue_over_two_strands_is_about_twice_one() {
        let ka = KarlinAltschul { lambda: 0.267, k: 0.041 };
        let one = Statistics {
            source: EvalueSource::Published,
            params: Some(ka),
            regression: None,
            note: None,
            db_sequences: 1000,
            strands: 1,
        };
        let two = Statistics { strands: 2, ..one.clone() };
        let (e1, e2) = (one.evalue(60, 300, 300), two.evalue(60, 300, 300));
        assert!((e2 / e1 - 2.0).abs() < 1e-3, "{e1} {e2}");
        assert!(two.evalue(0, 300, 300) <= 1000.0);
        let none = Statistics { source: EvalueSource::None, params: None, ..one };
        assert!(none.evalue(60, 300, 300).is_nan() && none.bit_score(60, 300, 300).is_nan());
    }

    #[test]
    fn a_native_path_disagreement_is_no_device_error() {
        use crate::seq::{Alphabet, Database};
        let engine = crate::engine::Engine::new(crate::device::DeviceChoice::Native).unwrap();
        let seq = Sequence::from_letters("s1", b"MKVLAAGIW", Alphabet::Protein).unwrap();
        let db = Database::from_sequences(Alphabet::Protein, vec![seq]);
        let sc = Scoring::new(
            crate::scoring::Matrix::builtin("BLOSUM62").unwrap(),
            crate::scoring::Gaps::affine(11, 1).unwrap(),
        );
        let searcher = Searcher::new(&engine, &db, sc, super::super::SearchOptions::default()).unwrap();
        let hit = Hit { subject: 0, score: 25536, strand: Strand::Plus, evalue: 1.0, bit_score: 1.0, alignment: None };
        let e = searcher.disagreement(&hit, "25536 has no positive alignment".into());
        let text = e.to_string();
        assert!(matches!(e, Error::Internal(_)), "{text}");
        assert!(text.contains("native CPU path") && !text.contains("device"), "{text}");
    }
}
