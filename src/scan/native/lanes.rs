//! Sixteen 16-bit lanes as a plain array, for the CPU paths ([`super`],
//! [`super::striped`], [`crate::traceback::batch`]): the loops over them are written lane by lane and the compiler
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

/// True when 16-bit lanes computed scores up to `score` exactly: the scoring's gap
/// costs and pair scores fit ([`crate::scan::fits_16_bits`]) and `score` leaves room for one
/// more pair's score below `i16::MAX`, so no lane saturated on the way.
pub(crate) fn lanes_hold(score: i32, sc: &crate::scoring::Scoring) -> bool {
    crate::scan::fits_16_bits(sc) && score <= i16::MAX as i32 - sc.max_score().max(0)
}
