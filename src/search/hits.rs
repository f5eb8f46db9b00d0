//! A query's results: E-value statistics, the choice of hits and their alignments.

use super::Statistics;
use super::{Scanned, Searcher, Strand, reverse_complement};
use crate::align::Alignment;
use crate::engine::WorkerRef;
use crate::error::{Error, Result};
use crate::reference::LocalScore;
use crate::scoring::{Mode, Scoring};
use crate::seq::Sequence;
use crate::traceback::{self, HitEnd, align_from_ends};
use rayon::prelude::*;
use std::collections::HashMap;
use std::time::Instant;

/// A hit gets further alignments with its subject when its E-value is at most this
/// fraction of the search's threshold, and so does each of them (ssearch36's default:
/// its `-E` threshold's tenth).
pub const ALTERNATE_EVALUE_FRACTION: f64 = 0.1;

/// Where the checks of hits find each subject's score and strand from the scan: a
/// query's whole [`Scanned`], or the few subjects an MPI rank checks.
pub(crate) trait ScoresOf: Sync {
    fn score_of(&self, k: usize) -> LocalScore;
    fn strand_of(&self, k: usize) -> Strand;
}

impl ScoresOf for Scanned {
    fn score_of(&self, k: usize) -> LocalScore {
        self.scores[k]
    }
    fn strand_of(&self, k: usize) -> Strand {
        self.strands[k]
    }
}

impl ScoresOf for HashMap<usize, (LocalScore, Strand)> {
    fn score_of(&self, k: usize) -> LocalScore {
        self[&k].0
    }
    fn strand_of(&self, k: usize) -> Strand {
        self[&k].1
    }
}

/// One reported subject.
#[derive(Debug, Clone, PartialEq)]
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
    /// 0 for the subject's best alignment; 1, 2, ... for its further ones
    /// ([`super::SearchOptions::max_hsps`]), which follow it in the hit list, best first.
    pub hsp: usize,
}

impl Hit {
    /// The order hits are reported in, as BLAST and ssearch36 rank them: by E-value
    /// (length-corrected, so not always the score's order), ties by score (highest
    /// first), then database order.
    pub fn report_order(a: &Hit, b: &Hit) -> std::cmp::Ordering {
        a.evalue.total_cmp(&b.evalue).then(b.score.cmp(&a.score)).then(a.subject.cmp(&b.subject))
    }
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
/// [`crate::reference::align`]'s alignment, traced back from the end cell over the rectangle
/// that must hold it, 16 hits at a time ([`align_from_ends`]), so the score pass over
/// the matrix is not repeated and the rows and columns outside the alignment's reach
/// are never computed. A hit whose end is unknown (outside the pair) is aligned whole.
pub fn align_hits(query: &[u8], hits: &[HitEnd<'_>], scoring: &Scoring) -> Result<Vec<Option<Alignment>>> {
    if scoring.mode != Mode::Local {
        // The rectangle of a local alignment's reach has no bound in the other modes:
        // each hit is traced back over its whole pair, in linear space.
        return Ok(hits
            .par_iter()
            .map(|h| match h.end {
                end @ (i, j) if i < query.len() && j < h.subject.len() => {
                    traceback::align_ending_at(query, h.subject, scoring, end)
                }
                _ => traceback::align(query, h.subject, scoring),
            })
            .collect());
    }
    let (known, unknown): (Vec<usize>, Vec<usize>) =
        (0..hits.len()).partition(|&k| hits[k].end.0 < query.len() && hits[k].end.1 < hits[k].subject.len());
    let chosen: Vec<HitEnd<'_>> = known.iter().map(|&k| hits[k]).collect();
    let mut out: Vec<Option<Alignment>> = vec![None; hits.len()];
    for (&k, a) in known.iter().zip(align_from_ends(query, &chosen, scoring)?) {
        out[k] = a;
    }
    let whole: Vec<Option<Alignment>> =
        unknown.par_iter().map(|&k| traceback::align(query, hits[k].subject, scoring)).collect();
    for (&k, a) in unknown.iter().zip(whole) {
        out[k] = a;
    }
    Ok(out)
}

impl Searcher<'_> {
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
        scanned: &dyn ScoresOf,
        subjects: &[usize],
    ) -> Result<Vec<Option<(usize, usize)>>> {
        let mut ends = vec![None; subjects.len()];
        for (strand, query) in [(Strand::Plus, plus), (Strand::Minus, minus)] {
            let mine: Vec<usize> = (0..subjects.len())
                .filter(|&i| {
                    let k = subjects[i];
                    scanned.strand_of(k) == strand && (self.on_device(k) || scanned.score_of(k).end.is_none())
                })
                .collect();
            if mine.is_empty() {
                continue;
            }
            let residues: Vec<&[u8]> = mine.iter().map(|&i| self.db.residues(subjects[i])).collect();
            let known: Vec<i32> = mine.iter().map(|&i| scanned.score_of(subjects[i]).score).collect();
            let cpu = crate::scan::native::rescore(query, &residues, &known, &self.scoring)?.scores;
            for (&i, c) in mine.iter().zip(&cpu) {
                let (k, score) = (subjects[i], scanned.score_of(subjects[i]).score);
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
        scanned: &dyn ScoresOf,
        subjects: &[usize],
    ) -> Result<HashMap<usize, Option<Alignment>>> {
        let mut first_of: HashMap<(&[u8], Strand, i32), usize> = HashMap::new();
        let (mut distinct, mut copies) = (Vec::new(), Vec::new());
        for &k in subjects {
            match first_of.entry((self.db.residues(k), scanned.strand_of(k), scanned.score_of(k).score)) {
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
        scanned: &dyn ScoresOf,
        subjects: &[usize],
    ) -> Result<HashMap<usize, Option<Alignment>>> {
        let cpu_ends = self.check_hit_scores(plus, minus, scanned, subjects)?;
        let mut aligned: HashMap<usize, Option<Alignment>> = subjects.iter().map(|&k| (k, None)).collect();
        if self.options.alignments {
            for (strand, q) in [(Strand::Plus, plus), (Strand::Minus, minus)] {
                let mine: Vec<usize> =
                    (0..subjects.len()).filter(|&i| scanned.strand_of(subjects[i]) == strand).collect();
                let ends: Vec<HitEnd<'_>> = mine
                    .iter()
                    .map(|&i| {
                        let k = subjects[i];
                        HitEnd {
                            subject: self.db.residues(k),
                            end: scanned.score_of(k).end.or(cpu_ends[i]).unwrap_or((usize::MAX, usize::MAX)),
                            score: scanned.score_of(k).score,
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

    /// The hits of a scanned query under `statistics`, best first, without alignments:
    /// the subjects of a positive score whose E-value passes the threshold, in the
    /// order hits are reported ([`Hit::report_order`]), the first `max_hits` of them.
    /// `subject(i)` is the subject (this searcher's index) of `scanned.scores[i]`: `i`
    /// itself for a whole scan, the chunks' subjects for an MPI rank's dealt scan.
    pub(crate) fn candidates(
        &self,
        query_len: usize,
        scanned: &Scanned,
        subject: impl Fn(usize) -> usize + Sync,
        statistics: &Statistics,
    ) -> Vec<Hit> {
        // The subjects ggsearch36 or glsearch36 would score (any, in the local mode).
        let window = crate::stats::normal::length_window(query_len, self.scoring.mode);
        // A local hit scores above 0; a glocal one above the query deleted whole (an
        // alignment of no subject residue); a global one any score.
        let floor = match self.scoring.mode {
            Mode::Local => 0,
            Mode::Glocal => Mode::Glocal.left_edge(query_len, &self.scoring),
            Mode::Global => i32::MIN,
        };
        // On all threads: a database of 400,000 subjects takes 22 ms on one, on the
        // path of the last query's results.
        let mut hits: Vec<Hit> = (0..scanned.scores.len())
            .into_par_iter()
            .filter(|&i| scanned.scores[i].score > floor && window.contains(&self.lengths[subject(i)]))
            .filter_map(|i| {
                let (k, score) = (subject(i), scanned.scores[i].score);
                let evalue = statistics.evalue(score, query_len, self.lengths[k]);
                (evalue.is_nan() || evalue <= self.options.evalue).then(|| Hit {
                    subject: k,
                    score,
                    strand: scanned.strands[i],
                    evalue,
                    bit_score: statistics.bit_score(score, query_len, self.lengths[k]),
                    alignment: None,
                    hsp: 0,
                })
            })
            .collect();
        hits.sort_by(Hit::report_order);
        hits.truncate(self.options.max_hits);
        hits
    }

    /// Gives each hit its alignment from `aligned` (when alignments are on), which
    /// must confirm the hit's score ([`Self::disagreement`] where it does not).
    fn attach(&self, hits: &mut [Hit], mut aligned: HashMap<usize, Option<Alignment>>) -> Result<()> {
        if !self.options.alignments {
            return Ok(());
        }
        for h in hits {
            let a = aligned
                .remove(&h.subject)
                .flatten()
                .ok_or_else(|| self.disagreement(h, format!("{} has no positive alignment", h.score)))?;
            if a.score != h.score {
                return Err(self.disagreement(h, format!("{} differs from its alignment's {}", h.score, a.score)));
            }
            h.alignment = Some(a);
        }
        Ok(())
    }

    /// Checks the scores of `hits` (subjects of this searcher's database) and, when
    /// alignments are on, aligns them and adds their further alignments: what
    /// [`Self::finish`] does for its hits, for hits chosen elsewhere (by the ranks of an
    /// MPI search together).
    pub(crate) fn check_and_attach(
        &self,
        query: &[u8],
        scanned: &dyn ScoresOf,
        hits: &mut Vec<Hit>,
        statistics: &Statistics,
    ) -> Result<()> {
        let minus = if self.strands.contains(&Strand::Minus) { reverse_complement(query) } else { vec![] };
        let subjects: Vec<usize> = hits.iter().map(|h| h.subject).collect();
        let aligned = self.check_and_align(query, &minus, scanned, &subjects)?;
        self.attach(hits, aligned)?;
        self.add_alternates(query, &minus, statistics, hits)
    }

    /// Adds after each hit its further alignments with its subject, best first, up to
    /// `max_hsps` alignments a subject ([`crate::traceback::alternates`]), as
    /// ssearch36 lists them: only a hit whose E-value is at most a tenth of the
    /// threshold ([`ALTERNATE_EVALUE_FRACTION`]) gets them, and only those with an
    /// E-value of their own (the subject's length, their own score) within that tenth.
    /// None without alignments or E-values.
    fn add_alternates(&self, plus: &[u8], minus: &[u8], statistics: &Statistics, hits: &mut Vec<Hit>) -> Result<()> {
        let max_more = self.options.max_hsps.saturating_sub(1);
        if max_more == 0 || !self.options.alignments {
            return Ok(());
        }
        let threshold = ALTERNATE_EVALUE_FRACTION * self.options.evalue;
        let m = plus.len();
        let more: Vec<Vec<Hit>> = hits
            .par_iter()
            .map(|h| {
                let Some(best) = h.alignment.as_ref().filter(|_| h.evalue <= threshold) else {
                    return Ok(Vec::new());
                };
                let (query, subject) =
                    (if h.strand == Strand::Plus { plus } else { minus }, self.db.residues(h.subject));
                let n = subject.len();
                let keep = |score: i32| statistics.evalue(score, m, n) <= threshold;
                let found = crate::traceback::alternates(query, subject, best, &self.scoring, &keep)?;
                Ok(found
                    .into_iter()
                    .take(max_more)
                    .enumerate()
                    .map(|(i, a)| Hit {
                        subject: h.subject,
                        score: a.score,
                        strand: h.strand,
                        evalue: statistics.evalue(a.score, m, n),
                        bit_score: statistics.bit_score(a.score, m, n),
                        alignment: Some(a),
                        hsp: i + 1,
                    })
                    .collect())
            })
            .collect::<Result<_>>()?;
        let firsts = std::mem::take(hits);
        for (h, more) in firsts.into_iter().zip(more) {
            hits.push(h);
            hits.extend(more);
        }
        Ok(())
    }

    /// Statistics, hit selection and alignments of one scanned query. The best-scoring
    /// subjects are checked and aligned while the statistics are fitted: the hits are
    /// the first `max_hits` of them that pass the E-value threshold, and the few that a
    /// failing one lets in from further down are aligned afterwards.
    pub(super) fn finish(&self, query: &Sequence, scanned: Scanned) -> Result<SearchResult> {
        let start = Instant::now();
        let m = query.residues.len();
        let scores = &scanned.scores;
        let first = best_scoring(scores, self.options.max_hits);
        let minus = if self.strands.contains(&Strand::Minus) { reverse_complement(&query.residues) } else { vec![] };
        let (statistics, early) = rayon::join(
            || self.stats.statistics(&self.stats.sample(scores, query.len()), &query.residues, &minus),
            || self.check_and_align(&query.residues, &minus, &scanned, &first),
        );
        let mut aligned = early?;
        let mut hits = self.candidates(m, &scanned, |k| k, &statistics);
        let later: Vec<usize> = hits.iter().map(|h| h.subject).filter(|k| !aligned.contains_key(k)).collect();
        aligned.extend(self.check_and_align(&query.residues, &minus, &scanned, &later)?);
        self.attach(&mut hits, aligned)?;
        self.add_alternates(&query.residues, &minus, &statistics, &mut hits)?;
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

/// The subjects scoring above 0, the first `max_hits` of them by score (the earlier
/// subject first between equal scores), in database order. Selected on every core,
/// each piece of the database keeping its best, rather than among every subject
/// above 0 on one thread: with that, the last query's work after its scan took 1.1 s
/// on a 20 G-residue database (44 M subjects, four H200s); 0.1-0.14 s now.
fn best_scoring(scores: &[LocalScore], max_hits: usize) -> Vec<usize> {
    let by_score = |&a: &usize, &b: &usize| scores[b].score.cmp(&scores[a].score).then(a.cmp(&b));
    // Keeps the first max_hits of `v` by score once it holds twice as many.
    let keep = |mut v: Vec<usize>, at: usize| {
        if v.len() >= at && v.len() > max_hits {
            if max_hits > 0 {
                v.select_nth_unstable_by(max_hits - 1, by_score);
            }
            v.truncate(max_hits);
        }
        v
    };
    let twice = max_hits.saturating_mul(2).max(1);
    let mut first = (0..scores.len())
        .into_par_iter()
        .with_min_len(1 << 14)
        .fold(Vec::new, |mut v, k| {
            if scores[k].score > 0 {
                v.push(k);
                v = keep(v, twice);
            }
            v
        })
        .reduce(Vec::new, |mut a, b| {
            a.extend(b);
            keep(a, twice)
        });
    first = keep(first, 0);
    first.sort_unstable();
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_scoring_subjects_are_the_serial_selection() {
        // Scores with many ties, some at 0; the serial rule: sort every subject above 0
        // by score (then index) and take the first max_hits.
        let scores: Vec<LocalScore> =
            (0..200_000u64).map(|k| LocalScore { score: ((k * 2_654_435_761) % 997) as i32 - 50, end: None }).collect();
        for max_hits in [0, 1, 7, 500, 10_000, 300_000] {
            let mut serial: Vec<usize> = (0..scores.len()).filter(|&k| scores[k].score > 0).collect();
            serial.sort_by(|&a, &b| scores[b].score.cmp(&scores[a].score).then(a.cmp(&b)));
            serial.truncate(max_hits);
            serial.sort_unstable();
            assert_eq!(best_scoring(&scores, max_hits), serial, "max_hits {max_hits}");
        }
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
        let hit = Hit {
            subject: 0,
            score: 25536,
            strand: Strand::Plus,
            evalue: 1.0,
            bit_score: 1.0,
            alignment: None,
            hsp: 0,
        };
        let e = searcher.disagreement(&hit, "25536 has no positive alignment".into());
        let text = e.to_string();
        assert!(matches!(e, Error::Internal(_)), "{text}");
        assert!(text.contains("native CPU path") && !text.contains("device"), "{text}");
    }
}
