//! The results of three-sequence alignment ([`crate::sw3`]): the best score with its end
//! cell ([`Sw3Score`]) and the aligned triple ([`Alignment3`]: columns, coordinates, gapped
//! rows and a readable view). They live beside the reference because the reference
//! returns them and [`Alignment3::rescore`] is the model's definition of a score.

use super::sw3::sw3_rescore;
use crate::scoring::Scoring;

/// A three-sequence local score and where it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sw3Score {
    pub score: i32,
    /// The end cell in DP coordinates `(i, j, k)`: the alignment covers `a[..i]`,
    /// `b[..j]`, `c[..k]` up to its end (exclusive ends). `None` when the score is 0.
    pub end: Option<[usize; 3]>,
}

impl Sw3Score {
    pub const ZERO: Sw3Score = Sw3Score { score: 0, end: None };
}

/// A local alignment of three sequences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alignment3 {
    pub score: i32,
    /// DP cell where the alignment starts: its segments begin at `a[start[0]]`,
    /// `b[start[1]]`, `c[start[2]]` (0-based).
    pub start: [usize; 3],
    /// DP cell where it ends: the segments are `a[start[0]..end[0]]` and so on
    /// (exclusive ends). A sequence with no residue in the alignment has an empty segment.
    pub end: [usize; 3],
    /// One mask per column, first to last: bit 0 set when `a` has a residue in the
    /// column, bit 1 for `b`, bit 2 for `c`.
    pub columns: Vec<u8>,
}

impl Alignment3 {
    /// Number of columns.
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// The three gapped rows, letters from `letter(code)` and `-` for gaps.
    pub fn rows(&self, seqs: [&[u8]; 3], letter: impl Fn(u8) -> u8) -> [String; 3] {
        let mut rows: [Vec<u8>; 3] = Default::default();
        let mut pos = self.start;
        for &m in &self.columns {
            for s in 0..3 {
                if (m >> s) & 1 == 1 {
                    rows[s].push(letter(seqs[s][pos[s]]));
                    pos[s] += 1;
                } else {
                    rows[s].push(b'-');
                }
            }
        }
        rows.map(|r| String::from_utf8_lossy(&r).into_owned())
    }

    /// Columns where all three sequences have the same residue.
    pub fn identities(&self, seqs: [&[u8]; 3]) -> usize {
        let mut pos = self.start;
        let mut n = 0;
        for &m in &self.columns {
            if m == 7 && seqs[0][pos[0]] == seqs[1][pos[1]] && seqs[1][pos[1]] == seqs[2][pos[2]] {
                n += 1;
            }
            for (s, p) in pos.iter_mut().enumerate() {
                *p += ((m >> s) & 1) as usize;
            }
        }
        n
    }

    /// Columns with a gap in at least one sequence.
    pub fn gapped_columns(&self) -> usize {
        self.columns.iter().filter(|&&m| m != 7).count()
    }

    /// The alignment's score recomputed from its columns by the model's definition
    /// (`reference::sw3::sw3_rescore`); equals `score` for every alignment clsw returns.
    pub fn rescore(&self, seqs: [&[u8]; 3], scoring: &Scoring) -> Option<i64> {
        sw3_rescore(&self.columns, self.start, seqs, scoring)
    }

    /// A readable view: blocks of `width` columns, each row with 1-based coordinates of
    /// its first and last residue in the block, and a marker line (`*` where all three
    /// residues are equal).
    pub fn view(&self, names: [&str; 3], seqs: [&[u8]; 3], letter: impl Fn(u8) -> u8, width: usize) -> String {
        let rows = self.rows(seqs, &letter);
        let width = width.max(10);
        let name_w = names.iter().map(|n| n.len()).max().unwrap_or(1).min(24);
        let mut out = String::new();
        let mut pos = self.start;
        let bytes: Vec<&[u8]> = rows.iter().map(|r| r.as_bytes()).collect();
        let mut col = 0;
        while col < self.columns.len() {
            let stop = (col + width).min(self.columns.len());
            for s in 0..3 {
                let seg = &bytes[s][col..stop];
                let n = seg.iter().filter(|&&ch| ch != b'-').count();
                let (from, to) = if n == 0 { (pos[s], pos[s]) } else { (pos[s] + 1, pos[s] + n) };
                let name: String = names[s].chars().take(name_w).collect();
                out.push_str(&format!(
                    "{name:<name_w$} {from:>7} {} {to}\n",
                    String::from_utf8_lossy(seg),
                    name_w = name_w
                ));
                pos[s] += n;
            }
            let marks: String = (col..stop)
                .map(|x| {
                    let (p, q, r) = (bytes[0][x], bytes[1][x], bytes[2][x]);
                    if p != b'-' && p == q && q == r { '*' } else { ' ' }
                })
                .collect();
            out.push_str(&format!("{:<w$} {:>7} {}\n\n", "", "", marks, w = name_w));
            col = stop;
        }
        out
    }
}
