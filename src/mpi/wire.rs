//! The bytes the ranks exchange: little-endian integers, floating point by its bits
//! (NaN E-values and the last bit of every figure survive the trip), strings with
//! their length. Our own few lines rather than a serialization crate: the messages are
//! a handful of fixed records, and floating point must cross exactly.

use crate::align::{Alignment, Op};
use crate::error::{Error, Result};
use crate::search::{Blend, EvalueSource, Hit, Statistics, Strand};
use crate::stats::normal::{NormalFit, NormalMethod};
use crate::stats::{BlastParameters, KarlinAltschul, Regression};

pub fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_f64(out: &mut Vec<u8>, v: f64) {
    put_u64(out, v.to_bits());
}

pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u64(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Reads what the `put_` functions wrote, in the same order; a message shorter than
/// its fields say is an internal error (ranks running different builds of clsw).
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.bytes.len() < n {
            return Err(Error::Internal(
                "a message between MPI ranks is cut short (do all ranks run the same clsw?)".into(),
            ));
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap_or_default()))
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap_or_default()))
    }

    pub fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_le_bytes(self.take(4)?.try_into().unwrap_or_default()))
    }

    pub fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_bits(self.u64()?))
    }

    pub fn usize(&mut self) -> Result<usize> {
        Ok(self.u64()? as usize)
    }

    pub fn str(&mut self) -> Result<&'a str> {
        let n = self.usize()?;
        std::str::from_utf8(self.take(n)?).map_err(|_| Error::Internal("a text between MPI ranks is not UTF-8".into()))
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// A hit, with its alignment when it has one.
pub fn put_hit(out: &mut Vec<u8>, h: &Hit) {
    put_u64(out, h.subject as u64);
    put_i32(out, h.score);
    out.push(matches!(h.strand, Strand::Minus) as u8);
    put_f64(out, h.evalue);
    put_f64(out, h.bit_score);
    put_u64(out, h.hsp as u64);
    match &h.alignment {
        None => out.push(0),
        Some(a) => {
            out.push(1);
            put_i32(out, a.score);
            for v in [a.query_start, a.query_end, a.subject_start, a.subject_end] {
                put_u64(out, v as u64);
            }
            for v in [a.identities, a.similarities, a.mismatches, a.gap_opens, a.gap_columns] {
                put_u64(out, v as u64);
            }
            put_u64(out, a.ops.len() as u64);
            for &(op, n) in &a.ops {
                out.push(op as u8);
                put_u64(out, n as u64);
            }
        }
    }
}

pub fn hit(r: &mut Reader<'_>) -> Result<Hit> {
    let subject = r.usize()?;
    let score = r.i32()?;
    let strand = if r.take(1)?[0] == 1 { Strand::Minus } else { Strand::Plus };
    let (evalue, bit_score, hsp) = (r.f64()?, r.f64()?, r.usize()?);
    let alignment = match r.take(1)?[0] {
        0 => None,
        _ => {
            let score = r.i32()?;
            let (query_start, query_end, subject_start, subject_end) = (r.usize()?, r.usize()?, r.usize()?, r.usize()?);
            let (identities, similarities, mismatches, gap_opens, gap_columns) =
                (r.usize()?, r.usize()?, r.usize()?, r.usize()?, r.usize()?);
            let n = r.usize()?;
            let mut ops = Vec::with_capacity(n.min(1 << 20));
            for _ in 0..n {
                let op = match r.take(1)?[0] {
                    0 => Op::Match,
                    1 => Op::Mismatch,
                    2 => Op::Insertion,
                    _ => Op::Deletion,
                };
                ops.push((op, r.u64()? as u32));
            }
            Some(Alignment {
                score,
                query_start,
                query_end,
                subject_start,
                subject_end,
                ops,
                identities,
                similarities,
                mismatches,
                gap_opens,
                gap_columns,
            })
        }
    };
    Ok(Hit { subject, score, strand, evalue, bit_score, alignment, hsp })
}

/// A query's statistics, as rank 0 fitted them for every rank.
pub fn put_statistics(out: &mut Vec<u8>, s: &Statistics) {
    out.push(EvalueSource::ALL.iter().position(|&e| e == s.source).unwrap_or(0) as u8);
    match s.params {
        None => out.push(0),
        Some(ka) => {
            out.push(1);
            put_f64(out, ka.lambda);
            put_f64(out, ka.k);
        }
    }
    match s.blast {
        None => out.push(0),
        Some(b) => {
            out.push(1);
            for v in [b.lambda, b.k, b.a, b.b, b.alpha, b.beta, b.sigma, b.tau] {
                put_f64(out, v);
            }
        }
    }
    match s.regression {
        None => out.push(0),
        Some(r) => {
            out.push(1);
            for v in [r.rho, r.mu, r.variance] {
                put_f64(out, v);
            }
            put_u64(out, r.outliers as u64);
            put_u64(out, r.dropped as u64);
        }
    }
    match s.normal {
        None => out.push(0),
        Some(n) => {
            out.push(1);
            for v in [n.mu, n.var, n.sd] {
                put_f64(out, v);
            }
            put_u64(out, n.trimmed as u64);
            out.push((n.method == NormalMethod::MedianIqr) as u8);
        }
    }
    match &s.note {
        None => out.push(0),
        Some(n) => {
            out.push(1);
            put_str(out, n);
        }
    }
    put_u64(out, s.db_sequences as u64);
    match s.db_residues {
        None => out.push(0),
        Some(d) => {
            out.push(1);
            put_f64(out, d);
        }
    }
    put_u64(out, s.strands as u64);
    match &s.blend {
        None => out.push(0),
        Some(b) => {
            out.push(1);
            put_f64(out, b.weight);
            put_statistics(out, &b.prior);
        }
    }
}

pub fn statistics(r: &mut Reader<'_>) -> Result<Statistics> {
    let source = *EvalueSource::ALL
        .get(r.u8()? as usize)
        .ok_or_else(|| Error::Internal("an E-value source between MPI ranks is unknown".into()))?;
    let params = match r.u8()? {
        0 => None,
        _ => Some(KarlinAltschul { lambda: r.f64()?, k: r.f64()? }),
    };
    let blast = match r.u8()? {
        0 => None,
        _ => Some(BlastParameters {
            lambda: r.f64()?,
            k: r.f64()?,
            a: r.f64()?,
            b: r.f64()?,
            alpha: r.f64()?,
            beta: r.f64()?,
            sigma: r.f64()?,
            tau: r.f64()?,
        }),
    };
    let regression = match r.u8()? {
        0 => None,
        _ => Some(Regression {
            rho: r.f64()?,
            mu: r.f64()?,
            variance: r.f64()?,
            outliers: r.usize()?,
            dropped: r.usize()?,
        }),
    };
    let normal = match r.u8()? {
        0 => None,
        _ => Some(NormalFit {
            mu: r.f64()?,
            var: r.f64()?,
            sd: r.f64()?,
            trimmed: r.usize()?,
            method: if r.u8()? == 1 { NormalMethod::MedianIqr } else { NormalMethod::MeanVariance },
        }),
    };
    let note = match r.u8()? {
        0 => None,
        _ => Some(r.str()?.to_string()),
    };
    let db_sequences = r.usize()?;
    let db_residues = match r.u8()? {
        0 => None,
        _ => Some(r.f64()?),
    };
    let strands = r.usize()?;
    let blend = match r.u8()? {
        0 => None,
        _ => Some(Blend { weight: r.f64()?, prior: Box::new(statistics(r)?) }),
    };
    Ok(Statistics { source, params, blast, regression, normal, note, db_sequences, db_residues, strands, blend })
}

/// An error that crosses ranks as part of a result (a psse pair's failed fit): the
/// kinds such results carry keep their kind and text; any other arrives as an invalid
/// argument with its whole text.
pub fn put_error(out: &mut Vec<u8>, e: &Error) {
    let (tag, text) = match e {
        Error::InvalidArgument(m) => (0, m.clone()),
        Error::Device(m) => (1, m.clone()),
        Error::Internal(m) => (2, m.clone()),
        e => (3, e.to_string()),
    };
    out.push(tag);
    put_str(out, &text);
}

pub fn error(r: &mut Reader<'_>) -> Result<Error> {
    let tag = r.take(1)?[0];
    let text = r.str()?.to_string();
    Ok(match tag {
        0 => Error::InvalidArgument(text),
        1 => Error::Device(text),
        2 => Error::Internal(text),
        _ => Error::InvalidArgument(text),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_cross_exactly() {
        let fitted = Statistics {
            source: EvalueSource::Fitted,
            params: Some(KarlinAltschul { lambda: 0.2671, k: 0.0412 }),
            blast: None,
            regression: None,
            normal: None,
            note: Some("published: none for these costs".into()),
            db_sequences: 400_000,
            db_residues: Some(1.5e8),
            strands: 2,
            blend: None,
        };
        let regression = Statistics {
            source: EvalueSource::Regression,
            params: None,
            regression: Some(Regression { rho: 3.1, mu: -2.5, variance: 61.5, outliers: 45, dropped: 5 }),
            note: None,
            ..fitted.clone()
        };
        let blast = BlastParameters::published("BLOSUM62", 11, 1);
        let published = Statistics {
            source: EvalueSource::Published,
            params: blast.map(|b| b.karlin_altschul()),
            blast,
            note: None,
            ..fitted.clone()
        };
        let blended = Statistics {
            blend: Some(Blend { prior: Box::new(published.clone()), weight: 0.375 }),
            ..regression.clone()
        };
        let normal = Statistics {
            source: EvalueSource::Normal,
            params: None,
            normal: Some(NormalFit {
                mu: -34.875,
                var: 129.55,
                sd: 11.38,
                trimmed: 2,
                method: NormalMethod::MedianIqr,
            }),
            db_sequences: 531,
            ..fitted.clone()
        };
        for s in [fitted, regression, published, blended, normal] {
            let mut bytes = Vec::new();
            put_statistics(&mut bytes, &s);
            let back = statistics(&mut Reader::new(&bytes)).unwrap();
            assert_eq!(format!("{back:?}"), format!("{s:?}"));
        }
    }

    #[test]
    fn hits_cross_exactly() {
        let a = Alignment {
            score: 57,
            query_start: 3,
            query_end: 40,
            subject_start: 1,
            subject_end: 39,
            ops: vec![(Op::Match, 10), (Op::Insertion, 2), (Op::Mismatch, 1), (Op::Deletion, 1), (Op::Match, 25)],
            identities: 35,
            similarities: 36,
            mismatches: 1,
            gap_opens: 2,
            gap_columns: 3,
        };
        let hits = [
            Hit {
                subject: 12,
                score: 57,
                strand: Strand::Minus,
                evalue: 1.5e-7,
                bit_score: 33.25,
                alignment: Some(a),
                hsp: 2,
            },
            Hit {
                subject: 1 << 40,
                score: 3,
                strand: Strand::Plus,
                evalue: f64::NAN,
                bit_score: -0.0,
                alignment: None,
                hsp: 0,
            },
        ];
        let mut bytes = Vec::new();
        hits.iter().for_each(|h| put_hit(&mut bytes, h));
        let mut r = Reader::new(&bytes);
        let back = [hit(&mut r).unwrap(), hit(&mut r).unwrap()];
        assert!(r.is_empty());
        assert_eq!(back[0], hits[0]);
        assert!(back[1].evalue.is_nan() && back[1].bit_score.to_bits() == (-0.0f64).to_bits());
        assert_eq!((back[1].subject, back[1].score, back[1].strand), (1 << 40, 3, Strand::Plus));
        let mut cut = Reader::new(&bytes[..bytes.len() - 1]);
        assert!(hit(&mut cut).is_ok() && hit(&mut cut).is_err());
    }
}
