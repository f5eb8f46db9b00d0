//! Host side of `cl/scan_inter.cl`: inter-task Smith-Waterman after Ligowski &
//! Rudnicki, one subject per work-item, query bands in registers, a boundary row in
//! global memory. Kept for: the seed's inter-task design, the default on CPU devices
//! (PoCL runs it faster than `team`), and, built with `WIDE=1`, the 32-bit recompute of
//! every narrow kernel's saturated subjects. Its launches are the
//! [`Scanner`](super::scanner::Scanner)'s, shared with `team`.

use crate::device::KernelSource;

pub const SOURCE: KernelSource = KernelSource { name: "scan_inter.cl", text: include_str!("../../cl/scan_inter.cl") };
