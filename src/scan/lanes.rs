//! Sixteen 16-bit lanes as a plain array, for the CPU paths ([`super::native`],
//! [`super::striped`]): the loops over them are written lane by lane and the compiler
//! turns them into vector instructions (AVX2 where the caller's function enables it).

pub(crate) const LANES: usize = 16;
pub(crate) type Lanes = [i16; LANES];

#[inline(always)]
pub(crate) fn splat(v: i16) -> Lanes {
    [v; LANES]
}

/// Lane-wise saturating addition.
#[inline(always)]
pub(crate) fn add(a: Lanes, b: Lanes) -> Lanes {
    std::array::from_fn(|l| a[l].saturating_add(b[l]))
}

#[inline(always)]
pub(crate) fn max(a: Lanes, b: Lanes) -> Lanes {
    std::array::from_fn(|l| a[l].max(b[l]))
}

/// True when scores up to `score` leave room for one more pair's score below
/// `i16::MAX`, so 16-bit lanes cannot have saturated on the way.
pub(crate) fn fits_16_bits(score: i32, sc: &crate::scoring::Scoring) -> bool {
    score <= i16::MAX as i32 - sc.matrix.max_score().max(0)
}
